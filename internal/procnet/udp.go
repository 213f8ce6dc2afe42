package procnet

import "fmt"

// RcvbufErrors is Udp RcvbufErrors of /proc/net/snmp: datagrams the
// host's UDP sockets dropped for a full receive buffer (this network
// namespace's count).
func (f FS) RcvbufErrors() (int64, error) {
	c, err := f.Counters()
	if err != nil {
		return 0, err
	}
	n, ok := c["Udp.RcvbufErrors"]
	if !ok {
		return 0, fmt.Errorf("no Udp RcvbufErrors in %s", f.path("proc/net/snmp"))
	}
	return n, nil
}
