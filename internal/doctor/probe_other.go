//go:build !linux

package doctor

import (
	"fmt"
	"runtime"
	"time"

	"github.com/tcptune/tcptune/internal/pmtu"
)

// Live probes the running system; only Linux is supported.
type Live struct{}

var errOS = fmt.Errorf("not supported on %s", runtime.GOOS)

func (Live) PathMTU(string, int) (pmtu.Result, error) { return pmtu.Result{}, errOS }
func (Live) RTT(string, int) (time.Duration, error)   { return 0, errOS }
func (Live) Ethtool(string) Ethtool {
	return Ethtool{RingErr: errOS, ChannelErr: errOS, OffloadErr: errOS}
}

func (Live) Qdisc(string) (string, error) { return "", errOS }
