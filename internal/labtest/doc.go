// Package labtest holds the end-to-end tests of tcptune lab: real
// namespaces, TUN devices, the relay process and kernel TCP. They need
// root; under TCPTUNE_REQUIRE_PRIV=1 (CI) a missing privilege fails them.
package labtest
