// Package procnet reads the kernel's network counters from /proc under
// an injectable root: the TcpExt/IpExt/Tcp counters of /proc/net/netstat
// and /proc/net/snmp (every name the kernel prints — prometheus/procfs
// misses several of the buffer-trouble ones), softnet_stat drops, and
// sockstat's TCP memory. Counters are per network namespace.
package procnet

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FS reads under Root ("/" for the live system, a fixture tree in tests).
// NetDir is the directory of the net files under Root: "proc/net" by
// default; "proc/thread-self/net" reads the network namespace of the
// calling thread (inside nsx.Do).
type FS struct{ Root, NetDir string }

func (f FS) path(p string) string {
	if f.NetDir != "" {
		p = strings.Replace(p, "proc/net", f.NetDir, 1)
	}
	return filepath.Join(f.Root, p)
}

// Counters maps "TcpExt.PruneCalled", "Tcp.RetransSegs" … to values.
type Counters map[string]int64

// Get returns a counter, 0 when the kernel does not print it.
func (c Counters) Get(name string) int64 { return c[name] }

// Counters reads /proc/net/netstat and /proc/net/snmp: pairs of lines,
// a header of names and a line of values, each starting with "Prefix:".
func (f FS) Counters() (Counters, error) {
	out := Counters{}
	for _, file := range []string{"proc/net/netstat", "proc/net/snmp"} {
		if err := readPairs(f.path(file), out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readPairs(path string, out Counters) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var header []string
	n := 0
	for sc.Scan() {
		n++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if header == nil {
			header = fields
			continue
		}
		if fields[0] != header[0] || len(fields) != len(header) {
			return fmt.Errorf("%s line %d: values do not match the header %s", path, n, header[0])
		}
		prefix := strings.TrimSuffix(header[0], ":")
		for i := 1; i < len(fields); i++ {
			v, err := strconv.ParseInt(fields[i], 10, 64)
			if err != nil {
				return fmt.Errorf("%s line %d: %s.%s: %q is not a number", path, n, prefix, header[i], fields[i])
			}
			out[prefix+"."+header[i]] = v
		}
		header = nil
	}
	return sc.Err()
}

// Softnet is /proc/net/softnet_stat summed over the CPUs: packets the
// receive backlog dropped because it held netdev_max_backlog already
// (column 2), and the times net_rx_action ran out of budget or time with
// work left (time_squeeze, column 3).
type Softnet struct {
	Dropped, Squeezed int64
}

// SoftnetStat reads the sums.
func (f FS) SoftnetStat() (Softnet, error) {
	data, err := os.ReadFile(f.path("proc/net/softnet_stat"))
	if err != nil {
		return Softnet{}, err
	}
	var s Softnet
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 {
			return Softnet{}, fmt.Errorf("softnet_stat: short line %q", line)
		}
		var v [2]int64
		for i := range v {
			if v[i], err = strconv.ParseInt(fields[i+1], 16, 64); err != nil {
				return Softnet{}, fmt.Errorf("softnet_stat: %q is not hex", fields[i+1])
			}
		}
		s.Dropped += v[0]
		s.Squeezed += v[1]
	}
	return s, nil
}

// SoftnetDrops is the receive backlog's drops since boot (softnet_stat
// column 2, summed over the CPUs).
func (f FS) SoftnetDrops() (int64, error) {
	s, err := f.SoftnetStat()
	return s.Dropped, err
}

// TCPMemPages is sockstat's "TCP: … mem N": pages TCP has allocated,
// the figure tcp_mem's thresholds apply to.
func (f FS) TCPMemPages() (int64, error) {
	data, err := os.ReadFile(f.path("proc/net/sockstat"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "TCP:" {
			continue
		}
		for i := 1; i+1 < len(fields); i += 2 {
			if fields[i] == "mem" {
				return strconv.ParseInt(fields[i+1], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("sockstat: no TCP mem figure")
}
