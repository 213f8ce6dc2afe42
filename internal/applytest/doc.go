// Package applytest holds the end-to-end tests of tcptune advise, apply
// and rollback, run only inside throwaway network namespaces. They need
// root; the host's own sysctls are checked unchanged after the suite.
package applytest
