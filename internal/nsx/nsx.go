// Package nsx runs code inside a named Linux network namespace (as made
// by "ip netns add" or tcptune lab): sockets it opens and /proc/sys/net
// it reads or writes are that namespace's. Elsewhere it is unsupported.
package nsx
