package tunesim

import "time"

const (
	mib = 1 << 20
	// Debian 12's defaults (Linux 6.1): tcp_rmem max 6 MiB, tcp_wmem max
	// 4 MiB.
	defRmem, defWmem = 6 * mib, 4 * mib
	kernel           = "6.1.0-18-amd64"
)

// Scenarios are the paths the baseline is measured on: the classes
// bench/tune.sh runs in the lab, and the ones tune was found short on.
var Scenarios = []Scenario{
	{Name: "lab 1G×50ms, send buffer holds", Rate: 1e9, RTT: 50 * time.Millisecond, Queue: 1, Both: true, Rmem: defRmem, Wmem: defWmem, CC: "cubic"},
	{Name: "lab 2.5G×20ms, cubic, queue 0.3 BDP", Rate: 2.5e9, RTT: 20 * time.Millisecond, Queue: 0.3, Both: true, Rmem: defRmem, Wmem: defWmem, CC: "cubic"},
	{Name: "lab 1G×40ms, bbr, queue 0.2 BDP", Rate: 1e9, RTT: 40 * time.Millisecond, Queue: 0.2, Both: true, Rmem: defRmem, Wmem: defWmem, CC: "bbr"},
	{Name: "lab 300M×150ms, 0.1% loss", Rate: 300e6, RTT: 150 * time.Millisecond, Queue: 1, Loss: 0.001, Both: true, Rmem: defRmem, Wmem: defWmem, CC: "cubic"},
	{Name: "lab 100M×600ms, satellite", Rate: 100e6, RTT: 600 * time.Millisecond, Queue: 1, Both: true, Rmem: defRmem, Wmem: defWmem, CC: "cubic"},
	{Name: "lab 10G×1ms, a core saturates", Rate: 10e9, RTT: time.Millisecond, Queue: 1, Both: true, Rmem: defRmem, Wmem: defWmem, CC: "cubic", CPUCap: 6e9},
	{Name: "lab 1G×10ms, short transmit ring", Rate: 1e9, RTT: 10 * time.Millisecond, Queue: 1, Both: true, Rmem: defRmem, Wmem: defWmem, CC: "cubic", TxqNeed: 2500},
	{Name: "lab 10G×10ms, jumbo path, a core", Rate: 10e9, RTT: 10 * time.Millisecond, Queue: 1, Both: true, Rmem: defRmem, Wmem: defWmem, CC: "cubic", CPUCap: 5e9, PathMTU: 9000},
	{Name: "lab 100M×10ms, defaults fill it", Rate: 100e6, RTT: 10 * time.Millisecond, Queue: 1, Both: true, Rmem: defRmem, Wmem: defWmem, CC: "cubic"},
	{Name: "stock peer 2G×25ms, cubic, queue 0.5 BDP", Rate: 2e9, RTT: 25 * time.Millisecond, Queue: 0.5, Stock: true, PeerRmem: 32 * mib, PeerWmem: 32 * mib, Rmem: defRmem, Wmem: defWmem, CC: "cubic"},
	{Name: "stock peer 2G×25ms, cubic, queue 0.5 BDP, maxima at 32 MiB", Rate: 2e9, RTT: 25 * time.Millisecond, Queue: 0.5, Stock: true, PeerRmem: 32 * mib, PeerWmem: 32 * mib, Rmem: 32 * mib, Wmem: 32 * mib, CC: "cubic"},
	{Name: "stock peer 1G×50ms, its send buffer holds reverse", Rate: 1e9, RTT: 50 * time.Millisecond, Queue: 1, Stock: true, PeerRmem: 32 * mib, PeerWmem: defWmem, Rmem: defRmem, Wmem: defWmem, CC: "cubic"},
}
