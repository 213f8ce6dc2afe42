package sockopt

import "syscall"

// SetBuffers sets SO_SNDBUF and SO_RCVBUF to n bytes.
func SetBuffers(rc syscall.RawConn, n int) error {
	return control(rc, func(fd uintptr) error {
		h := syscall.Handle(fd)
		if err := syscall.SetsockoptInt(h, syscall.SOL_SOCKET, syscall.SO_SNDBUF, n); err != nil {
			return err
		}
		return syscall.SetsockoptInt(h, syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
	})
}

// Buffers reads back SO_SNDBUF and SO_RCVBUF.
func Buffers(rc syscall.RawConn) (snd, rcv int, err error) {
	err = control(rc, func(fd uintptr) error {
		h := syscall.Handle(fd)
		var e error
		if snd, e = getsockoptInt(h, syscall.SO_SNDBUF); e != nil {
			return e
		}
		rcv, e = getsockoptInt(h, syscall.SO_RCVBUF)
		return e
	})
	return
}

func getsockoptInt(h syscall.Handle, opt int32) (int, error) {
	var v int32
	l := int32(4)
	err := syscall.Getsockopt(h, syscall.SOL_SOCKET, opt, (*byte)(unsafePointer(&v)), &l)
	return int(v), err
}

// SetMSS is not available on Windows.
func SetMSS(rc syscall.RawConn, mss int) error { return ErrUnsupported }

// MSS is not available on Windows.
func MSS(rc syscall.RawConn) (int, error) { return 0, ErrUnsupported }

// SetTOS is ignored by Windows without QoS policy; report unsupported.
func SetTOS(rc syscall.RawConn, tos int, ipv6 bool) error { return ErrUnsupported }
