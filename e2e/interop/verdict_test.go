//go:build linux

package interop_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
)

// A TCP sender paced by -b that delivers what it asked is held by the
// application, not by the congestion window it never filled: against
// stock iperf3 3.12 and 3.22 servers and tcptune serve, with cubic and
// bbr set explicitly.
func TestPacedSenderIsTheApplications(t *testing.T) {
	ports := map[string]int{}
	for _, pr := range peers(t) {
		ports["iperf3 "+pr.name] = startIperf3Server(t, pr.path)
	}
	ports["tcptune"], _ = startTcptuneServer(t)
	bin := testutil.Binary(t)
	for name, port := range ports {
		for _, cc := range []string{"cubic", "bbr"} {
			out, errOut, err := runRetrying(t, 60*time.Second, bin, "bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-b", "200M", "-t", "2", "-C", cc)
			if err != nil {
				t.Fatalf("%s %s: %v\n%s%s", name, cc, err, out, errOut)
			}
			if !strings.Contains(out, "Limit (client→server): limited by the requested bitrate: -b 200 Mbit/s per stream") {
				t.Errorf("%s, %s: want the requested bitrate named:\n%s", name, cc, out)
			}
		}
	}
}
