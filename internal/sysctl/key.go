package sysctl

import "strings"

// Canonical is key in the dotted form Path reads, following sysctl(8)
// (procps-ng) and sysctl.d(5): when the first separator is "/", the key
// was written as a path (net/ipv4/conf/eth0.100/forwarding) and dots and
// slashes swap (net.ipv4.conf.eth0/100.forwarding); when it is ".", the
// key is already dotted and a "/" in it stands for a dot in a name.
// Both spellings of one sysctl have one canonical form.
func Canonical(key string) string {
	i := strings.IndexAny(key, "./")
	if i < 0 || key[i] == '.' {
		return key
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '.':
			return '/'
		case '/':
			return '.'
		}
		return r
	}, key)
}
