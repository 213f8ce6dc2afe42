//go:build !windows

package trust

import (
	"io/fs"
	"syscall"
)

// owner is a file's owner's uid.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
