// Package watchtest holds the end-to-end tests of tcptune watch: on a lab
// link a receiver that reads slowly with a small tcp_rmem must be seen as
// receive-buffer pressure, in the JSON output and in the Prometheus
// metrics. They need root; under TCPTUNE_REQUIRE_PRIV=1 (CI) a missing
// privilege fails them.
package watchtest
