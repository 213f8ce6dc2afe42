package result

import (
	"net"
	"testing"
)

func TestConnOf(t *testing.T) {
	c := ConnOf(5, 7, &net.TCPAddr{IP: net.ParseIP("::1"), Port: 5201}, &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 40000})
	if c.LocalHost != "::1" || c.LocalPort != 5201 || c.RemoteHost != "10.0.0.2" || c.RemotePort != 40000 || c.ID != 5 || c.Socket != 7 {
		t.Fatalf("%+v", c)
	}
	if h, p := SplitAddr(nil); h != "" || p != 0 {
		t.Fatal("nil address")
	}
	if h, p := SplitAddr(&net.UnixAddr{Name: "/x"}); h != "/x" || p != 0 {
		t.Fatalf("no port: %q %d", h, p)
	}
}
