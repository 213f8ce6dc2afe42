// Package interop holds the end-to-end tests of tcptune bench and serve
// against the real iperf3 (Debian's 3.12) in both directions, tcptune
// against itself, and the -J schema checked key by key against iperf3's.
package interop
