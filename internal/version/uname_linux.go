package version

import (
	"strings"

	"golang.org/x/sys/unix"
)

func uname() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	f := func(b []byte) string { return strings.TrimRight(string(b), "\x00") }
	return strings.Join([]string{f(u.Sysname[:]), f(u.Nodename[:]), f(u.Release[:]), f(u.Version[:]), f(u.Machine[:])}, " ")
}
