package tun

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Offload flags for TUNSETOFFLOAD (include/uapi/linux/if_tun.h).
const (
	fCSUM = 0x01
	fTSO4 = 0x02
	fTSO6 = 0x04
)

// Device is an open TUN device.
type Device struct {
	*os.File
	Name string
}

// Open creates (or attaches to) the TUN device name with a 10-byte
// virtio_net_hdr before every packet and checksum/TSO offload on.
// The device lives as long as the descriptor.
func Open(name string) (*Device, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("tun %s: %w", name, err)
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI | unix.IFF_VNET_HDR)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("TUNSETIFF %s: %w", name, err)
	}
	if err := unix.IoctlSetInt(fd, unix.TUNSETOFFLOAD, fCSUM|fTSO4|fTSO6); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("TUNSETOFFLOAD %s: %w", name, err)
	}
	return &Device{File: os.NewFile(uintptr(fd), "/dev/net/tun:"+name), Name: name}, nil
}
