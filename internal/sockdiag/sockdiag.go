// Package sockdiag lists TCP sockets through the kernel's sock_diag
// netlink interface (what ss uses), with TCP_INFO and the socket-memory
// figures (INET_DIAG_SKMEMINFO) that vishvananda/netlink does not
// request.
package sockdiag

import (
	"fmt"
	"net/netip"

	"github.com/tcptune/tcptune/internal/sockopt"
)

// SkMem is INET_DIAG_SKMEMINFO (ss's skmem:(r,rb,t,tb,f,w,o,bl,d)).
type SkMem struct {
	RmemAlloc  uint32 `json:"rmem_alloc"`  // r: queued for the application to read
	Rcvbuf     uint32 `json:"rcvbuf"`      // rb: receive-buffer limit
	WmemAlloc  uint32 `json:"wmem_alloc"`  // t: handed to lower layers
	Sndbuf     uint32 `json:"sndbuf"`      // tb: send-buffer limit
	FwdAlloc   uint32 `json:"fwd_alloc"`   // f
	WmemQueued uint32 `json:"wmem_queued"` // w: in the write queue, unacknowledged included
	Optmem     uint32 `json:"optmem"`      // o
	Backlog    uint32 `json:"backlog"`     // bl
	Drops      uint32 `json:"drops"`       // d: dropped on this socket
}

// Socket is one TCP socket.
type Socket struct {
	Local  netip.AddrPort   `json:"local"`
	Remote netip.AddrPort   `json:"remote"`
	State  string           `json:"state"`
	RecvQ  uint32           `json:"recv_q"`
	SendQ  uint32           `json:"send_q"`
	Inode  uint32           `json:"inode"`
	Cookie uint64           `json:"cookie"`
	Info   *sockopt.TCPInfo `json:"tcp_info,omitempty"`
	Mem    *SkMem           `json:"skmem,omitempty"`
}

// Key identifies a socket across dumps.
func (s Socket) Key() string { return fmt.Sprintf("%s-%s-%d", s.Local, s.Remote, s.Cookie) }

// states are the kernel's TCP states, by number.
var states = [...]string{"", "ESTAB", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1", "FIN-WAIT-2", "TIME-WAIT", "CLOSE", "CLOSE-WAIT", "LAST-ACK", "LISTEN", "CLOSING", "NEW-SYN-RECV"}

func stateName(s uint8) string {
	if int(s) < len(states) {
		return states[s]
	}
	return fmt.Sprintf("state-%d", s)
}
