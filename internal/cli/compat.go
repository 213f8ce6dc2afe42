package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/units"
)

// compatFlags are iperf3 3.22's client options that bench (and tcptune
// under the name iperf3) takes so that scripts run unchanged: those it
// honours, those it accepts with a warning, and those it refuses in
// iperf3's words.
type compatFlags struct {
	verbose, repeating, gsro, mptcp, sctp bool
	debug, timestamps, dscp, bindDev      string
	file, xbind, pacingTimer              string
	sndTimeout, nstreams                  int
}

func (c *compatFlags) register(fs *pflag.FlagSet) {
	fs.BoolVarP(&c.verbose, "verbose", "V", false, "more detailed output (accepted; tcptune's report is already the detailed one)")
	fs.StringVarP(&c.debug, "debug", "d", "", "emit debugging output (accepted; no effect)")
	fs.Lookup("debug").NoOptDefVal = "1"
	fs.StringVar(&c.timestamps, "timestamps", "", "emit a timestamp (strftime FORMAT, default \"%c \") at the start of each output line")
	fs.Lookup("timestamps").NoOptDefVal = "%c "
	fs.StringVar(&c.dscp, "dscp", "", "set the IP DSCP value, 0-63 or symbolic (af11-af43, cs0-cs7, ef, va, le)")
	fs.StringVar(&c.bindDev, "bind-dev", "", "bind to the network interface DEV with SO_BINDTODEVICE (Linux)")
	fs.BoolVar(&c.repeating, "repeating-payload", false, "use a repeating pattern in the payload (accepted; the payload is never inspected)")
	flagx.IntVarP(fs, &c.sndTimeout, "snd-timeout", "", 0, 0, 86400000, "milliseconds", "timeout for unacknowledged TCP data, TCP_USER_TIMEOUT (ms, Linux)")
	fs.BoolVar(&c.gsro, "gsro", false, "enable UDP GSO/GRO (not supported by tcptune: accepted with a warning)")
	fs.BoolVarP(&c.mptcp, "mptcp", "m", false, "use MPTCP (not supported by tcptune)")
	fs.StringVarP(&c.file, "file", "F", "", "transmit or receive a file (not supported by tcptune)")
	fs.StringVar(&c.pacingTimer, "pacing-timer", "", "the server's pacing timer in microseconds, e.g. 1000, 1K (default 1000)")
	fs.BoolVar(&c.sctp, "sctp", false, "use SCTP (not supported by tcptune)")
	fs.StringVarP(&c.xbind, "xbind", "X", "", "bind SCTP associations to links (not supported by tcptune)")
	flagx.IntVarP(fs, &c.nstreams, "nstreams", "", 0, 0, 65535, "streams", "number of SCTP streams (not supported by tcptune)")
}

// apply refuses what tcptune cannot do, in iperf3's words, warns about
// what it ignores, and sets the rest on o.
func (c *compatFlags) apply(o *client.Options, warn io.Writer) error {
	switch {
	case c.mptcp:
		return errors.New("-m/--mptcp: MPTCP is not supported by tcptune")
	case c.file != "":
		return errors.New("-F/--file: transmitting a file is not supported by tcptune")
	case c.sctp || c.xbind != "" || c.nstreams > 0:
		return errors.New("--sctp, -X/--xbind, --nstreams: SCTP is not supported by tcptune")
	}
	if c.gsro {
		fmt.Fprintln(warn, "warning: --gsro: UDP GSO/GRO is not supported by tcptune; ignored")
	}
	if c.dscp != "" {
		d, err := flagx.ParseDSCP(c.dscp)
		if err != nil {
			return err
		}
		o.Params.TOS = d << 2
	}
	if c.pacingTimer != "" {
		v, err := units.ParseBytes(c.pacingTimer)
		if err != nil || v <= 0 || v > 1e9 {
			return fmt.Errorf("--pacing-timer: accepts microseconds, e.g. 1000 or 1K (got %q)", c.pacingTimer)
		}
		o.Params.PacingTimer = int(v)
	}
	o.Device, o.SndTimeout = c.bindDev, c.sndTimeout
	return o.Params.Validate()
}
