package relay

// Device is one end of the link as the relay sees it, in the manner of
// wireguard-go's tun.Device: whole packets, each behind its 10-byte
// virtio_net_hdr, are read and written one per call. An open TUN device
// (*os.File, *tun.Device) is one; the tests use an in-memory pipe, so
// that the relay and its link model run without root.
//
// Read must return os.ErrClosed (or an error wrapping it) once Close has
// been called: that is how Run stops its readers.
type Device interface {
	Read(p []byte) (int, error)
	Write(p []byte) (int, error)
	Close() error
}
