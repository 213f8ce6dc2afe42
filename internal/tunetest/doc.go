// Package tunetest holds the end-to-end tests of tcptune tune: on a lab
// link (--lab), and from a lab namespace against a real tcptune or iperf3
// server (--peer), with the HTML report rendered in headless Chromium.
// They need root; under TCPTUNE_REQUIRE_PRIV=1 (CI) a missing privilege
// or browser fails them.
package tunetest
