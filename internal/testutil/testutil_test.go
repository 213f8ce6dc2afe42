package testutil

import (
	"reflect"
	"testing"
)

func TestDuplicateKeys(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`{"a":1,"b":{"c":2,"d":[{"e":1},{"e":2}]}}`, nil},
		{`{"a":1,"a":2}`, []string{".a"}},
		{`{"s":[{"x":1,"y":2,"x":3}],"t":{"u":{"v":0,"v":1}}}`, []string{".s[].x", ".t.u.v"}},
	} {
		got, err := DuplicateKeys([]byte(c.in))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v %v, want %v", c.in, got, err, c.want)
		}
	}
	if _, err := DuplicateKeys([]byte(`{"a":`)); err == nil {
		t.Error("truncated JSON accepted")
	}
}
