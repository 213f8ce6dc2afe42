// Package version names this build and the system it runs on, for the
// report's "version" and "system_info" keys.
package version

import "runtime"

// Version is tcptune's version.
const Version = "0.1.0"

// IperfString is the -J "version" value: tcptune's, with the iperf3
// protocol version it speaks.
func IperfString() string { return "tcptune " + Version + " (iperf 3.12 protocol)" }

// SystemInfo is a uname-like description of this host.
func SystemInfo() string {
	if s := uname(); s != "" {
		return s
	}
	return runtime.GOOS + " " + runtime.GOARCH
}
