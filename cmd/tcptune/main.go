// Command tcptune measures, explains and tunes TCP throughput. Run under
// the name "iperf3" (a symlink) it takes iperf3's command line.
package main

import (
	"os"

	"github.com/tcptune/tcptune/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args, os.Stdout, os.Stderr))
}
