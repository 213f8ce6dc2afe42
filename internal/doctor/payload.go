package doctor

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// pcieControl is what the PCI Express capability's Device Capabilities
// and Device Control registers say about transfer sizes, in bytes.
type pcieControl struct {
	MPSSupported, MPS, MRRS int
}

// readPCIeControl walks the capability list of a function's config
// space (sysfs "config": the first 64 bytes for anyone, all 256 for
// root) to the PCI Express capability (ID 0x10): Device Capabilities at
// +4 (bits 0-2, Max_Payload_Size Supported) and Device Control at +8
// (bits 5-7 Max_Payload_Size, 12-14 Max_Read_Request_Size), each a
// power of two from 128 bytes.
func readPCIeControl(cfg []byte) (pcieControl, error) {
	if len(cfg) < 0x40 {
		return pcieControl{}, fmt.Errorf("config space too short (%d bytes)", len(cfg))
	}
	if binary.LittleEndian.Uint16(cfg[6:])&0x10 == 0 {
		return pcieControl{}, fmt.Errorf("no capability list")
	}
	at := int(cfg[0x34] &^ 3)
	for hops := 0; at >= 0x40 && hops < 48; hops++ {
		if at+12 > len(cfg) {
			return pcieControl{}, fmt.Errorf("capability at %#x beyond the %d bytes readable (root reads all 256)", at, len(cfg))
		}
		if cfg[at] == 0x10 {
			devcap := binary.LittleEndian.Uint32(cfg[at+4:])
			devctl := binary.LittleEndian.Uint16(cfg[at+8:])
			return pcieControl{
				MPSSupported: 128 << (devcap & 7),
				MPS:          128 << ((devctl >> 5) & 7),
				MRRS:         128 << ((devctl >> 12) & 7),
			}, nil
		}
		at = int(cfg[at+1] &^ 3)
	}
	return pcieControl{}, fmt.Errorf("no PCI Express capability")
}

// checkPCIePayload: PCIe's analogue of seed 002's PCI-X MMRBC. A NIC
// reads each packet it sends from memory in requests of at most
// Max_Read_Request_Size; small requests (128 or 256 bytes) cost a round
// trip over the bus each and cap DMA below a fast link's rate.
// Max_Payload_Size is what the platform negotiated along the path to
// the root port: reported, since only the firmware sets it.
func checkPCIePayload(h Host, in inputs) []Result {
	dev, ok := pciDevice(h)
	if !ok {
		return nil // checkPCIe already says there is no PCI device
	}
	cfg, err := os.ReadFile(filepath.Join(dev, "config"))
	if err != nil {
		return []Result{na("pcie-payload", fmt.Sprintf("%s: config space unreadable: %v", filepath.Base(dev), err))}
	}
	c, err := readPCIeControl(cfg)
	if err != nil {
		return []Result{na("pcie-payload", fmt.Sprintf("%s: %v", filepath.Base(dev), err))}
	}
	r := Result{Check: "pcie-payload", Verdict: OK, Evidence: fmt.Sprintf("%s: Max_Read_Request_Size %d B, Max_Payload_Size %d B (device supports %d B)", filepath.Base(dev), c.MRRS, c.MPS, c.MPSSupported)}
	if c.MRRS < 512 && in.speedMbps >= 10000 {
		r.Verdict = Warn
		r.Why = fmt.Sprintf("read requests of %d B on a %d Gbit/s NIC cost a bus round trip per %d B of each packet sent; 4096 is the usual maximum for NICs (the driver or the firmware sets it; setpci can, on the device's PCI Express capability's Device Control register)", c.MRRS, in.speedMbps/1000, c.MRRS)
	}
	return []Result{r}
}

// checkTxQueue: the interface's transmit queue against its speed. The
// default 1000 packets drain in 1.2 ms at 10 Gbit/s: a window's burst
// overflows it, and the drops show as tx_dropped or qdisc drops.
func checkTxQueue(h Host, in inputs) []Result {
	q, err := h.readInt("sys/class/net/" + h.Iface + "/tx_queue_len")
	if err != nil {
		return []Result{na("txqueuelen", fmt.Sprintf("%s: tx_queue_len unreadable", h.Iface))}
	}
	r := Result{Check: "txqueuelen", Verdict: OK, Evidence: fmt.Sprintf("%s txqueuelen %d", h.Iface, q)}
	if in.speedMbps <= 0 {
		r.Evidence += " (no link speed to compare with)"
		return []Result{r}
	}
	drain := float64(q) * 1500 * 8 / (float64(in.speedMbps) * 1e6)
	r.Evidence += fmt.Sprintf(": %d full-size packets drain in %.2f ms at %d Mbit/s", q, drain*1e3, in.speedMbps)
	if in.speedMbps >= 10000 && q < 10000 {
		r.Verdict, r.Why, r.Fix = Warn, "a short transmit queue on a fast link drops a window's burst (ESnet sets 10000 at 10G+)", fmt.Sprintf("ip link set dev %s txqueuelen 10000", h.Iface)
	}
	return []Result{r}
}
