// Package version names this build and the system it runs on, for the
// report's "version" and "system_info" keys.
package version

import "runtime"

// Version is tcptune's version.
const Version = "0.1.0"

// Iperf3 is the iperf3 release whose protocol, JSON and flags tcptune
// follows.
const Iperf3 = "3.22"

// IperfString is the -J "version" value: tcptune's, with the iperf3
// release it follows.
func IperfString() string { return "tcptune " + Version + " (iperf " + Iperf3 + " protocol)" }

// Iperf3Line is the first line of --version under the name iperf3:
// tools that drive iperf3 read its second word as the version.
func Iperf3Line() string { return "iperf " + Iperf3 + " (tcptune " + Version + ")" }

// SystemInfo is a uname-like description of this host.
func SystemInfo() string {
	if s := uname(); s != "" {
		return s
	}
	return runtime.GOOS + " " + runtime.GOARCH
}
