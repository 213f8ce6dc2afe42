package doctor

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// routeIface finds the interface of the most specific IPv4 route to the
// peer in /proc/net/route, or of the default route without a peer.
func routeIface(h Host) (string, error) {
	data, err := h.read("proc/net/route")
	if err != nil {
		return "", fmt.Errorf("routes: %w", err)
	}
	var dst netip.Addr
	if h.Peer != "" {
		if a, err := netip.ParseAddr(h.Peer); err == nil && a.Is4() {
			dst = a
		}
	}
	if dst.IsValid() && dst.IsLoopback() {
		return "lo", nil
	}
	best, bestBits := "", -1
	for _, line := range strings.Split(data, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		d, err1 := le32(f[1])
		m, err2 := le32(f[7])
		if err1 != nil || err2 != nil {
			continue
		}
		bits := 0
		for x := m; x != 0; x <<= 1 {
			bits++
		}
		match := bits == 0
		if dst.IsValid() {
			a := binary.BigEndian.Uint32(dst.AsSlice())
			match = a&m == d&m
		}
		if match && bits > bestBits {
			best, bestBits = f[0], bits
		}
	}
	if best == "" {
		return "", errors.New("no route found: name the interface with --iface")
	}
	return best, nil
}

// le32 reads /proc/net/route's little-endian hex as a big-endian value.
func le32(s string) (uint32, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 4 {
		return 0, fmt.Errorf("bad hex %q", s)
	}
	return binary.BigEndian.Uint32([]byte{b[3], b[2], b[1], b[0]}), nil
}
