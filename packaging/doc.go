// Package packaging holds what installs tcptune: the nfpm configuration
// of the .deb and .rpm (make package), the hardened systemd unit for
// `tcptune serve` and its defaults file (packaging/systemd), and a Grafana
// dashboard (packaging/grafana). Its tests build the packages and check
// them with lintian, the unit with systemd-analyze, and the dashboard's
// queries against the metrics tcptune exports.
package packaging
