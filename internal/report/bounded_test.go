package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestHeadTailKeepsBothEnds(t *testing.T) {
	for _, c := range []struct{ max, n int }{{0, 7}, {4, 3}, {4, 10}, {5, 12}, {1, 5}} {
		var h headTail[int]
		h.max = c.max
		for i := range c.n {
			h.add(i)
		}
		var want []int
		for i := range c.n {
			if c.max == 0 || i < (c.max+1)/2 || i >= c.n-c.max/2 {
				want = append(want, i)
			}
		}
		if got := h.items(); !slices.Equal(got, want) || h.dropped != c.n-len(want) {
			t.Errorf("max %d, %d items: kept %v (dropped %d), want %v", c.max, c.n, got, h.dropped, want)
		}
	}
}

func TestClippedTextKeepsHeadAndTail(t *testing.T) {
	c := ClippedText{Max: 400}
	for i := range 100 {
		fmt.Fprintf(&c, "line %03d\n", i) // 9 bytes
	}
	s := c.String()
	if len(s) > 400+40 {
		t.Errorf("kept %d bytes, bound 400", len(s))
	}
	if !strings.HasPrefix(s, "line 000\nline 001\n") || !strings.HasSuffix(s, "line 098\nline 099\n") {
		t.Errorf("head or tail lost:\n%s", s)
	}
	kept := strings.Count(s, "line ")
	if !strings.Contains(s, fmt.Sprintf("[... %d lines left out ...]\n", 100-kept)) {
		t.Errorf("no count of the lines left out:\n%s", s)
	}
	var all ClippedText
	fmt.Fprint(&all, "a\nb")
	fmt.Fprint(&all, "c\n")
	if all.String() != "a\nbc\n" {
		t.Errorf("unbounded: %q", all.String())
	}
}
