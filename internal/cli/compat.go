package cli

import (
	"github.com/spf13/pflag"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/flagx"
)

// compatFlags are iperf3 3.22's client options that bench (and tcptune
// under the name iperf3) takes so that scripts run unchanged: those
// that shape the test go onto the client.Request, which honours them,
// warns about them or refuses them in iperf3's words; the output's and
// the no-ops stay here.
type compatFlags struct {
	verbose, repeating bool
	debug, timestamps  string
}

func (c *compatFlags) register(fs *pflag.FlagSet, r *client.Request) {
	fs.BoolVarP(&c.verbose, "verbose", "V", false, "more detailed output (accepted; tcptune's report is already the detailed one)")
	fs.StringVarP(&c.debug, "debug", "d", "", "emit debugging output (accepted; no effect)")
	fs.Lookup("debug").NoOptDefVal = "1"
	fs.StringVar(&c.timestamps, "timestamps", "", "emit a timestamp (strftime FORMAT, default \"%c \") at the start of each output line")
	fs.Lookup("timestamps").NoOptDefVal = "%c "
	fs.StringVar(&r.DSCP, "dscp", "", "set the IP DSCP value, 0-63 or symbolic (af11-af43, cs0-cs7, ef, va, le)")
	fs.StringVar(&r.BindDev, "bind-dev", "", "bind to the network interface DEV with SO_BINDTODEVICE (Linux)")
	fs.BoolVar(&c.repeating, "repeating-payload", false, "use a repeating pattern in the payload (accepted; the payload is never inspected)")
	flagx.IntVarP(fs, &r.SndTimeout, "snd-timeout", "", 0, 0, 86400000, "milliseconds", "timeout for unacknowledged TCP data, TCP_USER_TIMEOUT (ms, Linux)")
	fs.BoolVar(&r.GSRO, "gsro", false, "enable UDP GSO/GRO (not supported by tcptune: accepted with a warning)")
	fs.BoolVarP(&r.MPTCP, "mptcp", "m", false, "use MPTCP (not supported by tcptune)")
	fs.StringVarP(&r.File, "file", "F", "", "transmit or receive a file (not supported by tcptune)")
	fs.StringVar(&r.PacingTimer, "pacing-timer", "", "the server's pacing timer in microseconds, e.g. 1000, 1K (default 1000)")
	fs.BoolVar(&r.SCTP, "sctp", false, "use SCTP (not supported by tcptune)")
	fs.StringVarP(&r.XBind, "xbind", "X", "", "bind SCTP associations to links (SCTP is not supported by tcptune: ignored)")
	flagx.IntVarP(fs, &r.NStreams, "nstreams", "", 0, 0, 65535, "streams", "number of SCTP streams (SCTP is not supported by tcptune: ignored)")
}
