package sockopt

import (
	"encoding/binary"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/tcptune/tcptune/internal/testutil"
	"golang.org/x/sys/unix"
)

// A socket connected through ConnectWithFlowLabel carries the label,
// and Go's own connect accepts the socket it finds connecting.
func TestConnectWithFlowLabel(t *testing.T) {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		testutil.Need(t, false, "no IPv6 loopback: "+err.Error())
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	const label = 0x12345
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, address string, c syscall.RawConn) error {
		return ConnectWithFlowLabel(c, &net.TCPAddr{IP: net.IPv6loopback}, address, label)
	}}
	c, err := d.Dial("tcp6", ln.Addr().String())
	if err != nil {
		t.Fatalf("dial with a flow label: %v", err)
	}
	defer c.Close()
	if _, err := c.Write(make([]byte, 1<<16)); err != nil {
		t.Fatalf("write: %v", err)
	}
	rc, _ := c.(*net.TCPConn).SyscallConn()
	if got, err := FlowLabel(rc, false); err != nil || got != label {
		t.Fatalf("flow label %#x (%v), want %#x", got, err, label)
	}
	for _, bad := range []struct {
		addr  string
		label int
	}{{"127.0.0.1:5201", label}, {"[::ffff:127.0.0.1]:1", label}, {"[::1]:1", 0}, {"[::1]:1", 1 << 20}} {
		if err := ConnectWithFlowLabel(rc, nil, bad.addr, bad.label); err == nil {
			t.Errorf("%s label %d accepted", bad.addr, bad.label)
		}
	}
}

// FlowLabel reads a connected IPv6 socket's flow label: its own, or with
// remote its peer's (Linux 4.14+).
func FlowLabel(rc syscall.RawConn, remote bool) (int, error) {
	var out int
	err := control(rc, func(fd uintptr) error {
		req := in6FlowlabelReq{}
		if remote {
			req.Flags = ipv6FlFRemote
		}
		size := uint32(unsafe.Sizeof(req))
		if _, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, fd, unix.IPPROTO_IPV6, ipv6FlowlabelMgr,
			uintptr(unsafe.Pointer(&req)), uintptr(unsafe.Pointer(&size)), 0); e != 0 {
			return e
		}
		out = int(binary.BigEndian.Uint32((*[4]byte)(unsafe.Pointer(&req.Label))[:]) & 0xFFFFF)
		return nil
	})
	return out, err
}
