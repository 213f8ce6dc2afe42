// Package tun opens Linux TUN devices with virtio-net headers and TSO
// offload (IFF_VNET_HDR + TUNSETOFFLOAD), so that one read returns a TCP
// super-packet of up to 64 KB instead of one MTU-sized packet. Reads and
// writes park in Go's netpoller. Linux only.
package tun
