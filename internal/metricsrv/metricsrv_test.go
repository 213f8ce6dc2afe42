package metricsrv

import "testing"

func TestAddr(t *testing.T) {
	for in, want := range map[string]string{
		":9465": "127.0.0.1:9465", "9465": "127.0.0.1:9465", "0.0.0.0:9465": "0.0.0.0:9465",
		"[::]:9465": "[::]:9465", "10.0.0.1:80": "10.0.0.1:80", "localhost:1": "localhost:1",
	} {
		if got, err := Addr(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "host", ":99999", "a:b:c", ":x"} {
		if got, err := Addr(bad); err == nil {
			t.Errorf("%q accepted as %q", bad, got)
		}
	}
}
