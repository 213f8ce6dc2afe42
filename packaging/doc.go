// Package packaging holds what installs tcptune as a service: the
// hardened systemd unit for `tcptune serve` and its defaults file
// (packaging/systemd). Its test checks the unit with systemd-analyze.
package packaging
