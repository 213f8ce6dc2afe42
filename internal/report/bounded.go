package report

import (
	"bytes"
	"fmt"
)

// A long test must not make a server's memory grow with its length: the
// intervals a server keeps for its -J document, and the text it keeps for
// --get-server-output, are bounded to a head and a tail, and what falls
// between is counted rather than kept.

// headTail keeps the first half of max items and a ring of the last half.
type headTail[T any] struct {
	max     int
	head    []T
	tail    []T // a ring once full; next is its oldest item
	next    int
	dropped int
}

func (h *headTail[T]) add(v T) {
	if h.max <= 0 || len(h.head) < (h.max+1)/2 {
		h.head = append(h.head, v)
		return
	}
	if n := h.max / 2; len(h.tail) < n {
		h.tail = append(h.tail, v)
		return
	}
	if len(h.tail) == 0 {
		h.dropped++
		return
	}
	h.tail[h.next] = v
	h.next = (h.next + 1) % len(h.tail)
	h.dropped++
}

// items returns the kept items in order.
func (h *headTail[T]) items() []T {
	out := make([]T, 0, len(h.head)+len(h.tail))
	out = append(out, h.head...)
	out = append(out, h.tail[h.next:]...)
	return append(out, h.tail[:h.next]...)
}

// ClippedText is an io.Writer of lines that keeps at most about Max
// bytes: the first quarter and the last three quarters, with a line
// saying how many lines were left out between them. Its zero value
// keeps everything.
type ClippedText struct {
	Max     int
	head    bytes.Buffer
	tail    [][]byte
	tailLen int
	partial []byte
	dropped int
	headEnd bool
}

// Write keeps p, line by line.
func (c *ClippedText) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.partial = append(c.partial, p...)
			if c.Max > 0 && len(c.partial) > c.Max/4 { // a line too long to keep whole
				c.line(c.partial)
				c.partial = nil
			}
			break
		}
		line := append(c.partial, p[:i+1]...)
		c.partial = nil
		c.line(line)
		p = p[i+1:]
	}
	return n, nil
}

func (c *ClippedText) line(l []byte) {
	if c.Max <= 0 || (!c.headEnd && c.head.Len()+len(l) <= c.Max/4) {
		c.head.Write(l)
		return
	}
	c.headEnd = true
	c.tail = append(c.tail, bytes.Clone(l))
	c.tailLen += len(l)
	for c.tailLen > c.Max-c.Max/4 && len(c.tail) > 0 {
		c.tailLen -= len(c.tail[0])
		c.tail[0] = nil
		c.tail = c.tail[1:]
		c.dropped++
	}
}

// String is the kept text.
func (c *ClippedText) String() string {
	var b bytes.Buffer
	b.Write(c.head.Bytes())
	if c.dropped > 0 {
		fmt.Fprintf(&b, "[... %d lines left out ...]\n", c.dropped)
	}
	for _, l := range c.tail {
		b.Write(l)
	}
	b.Write(c.partial)
	return b.String()
}
