package apply

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// preserve gives tmp, about to replace old, old's owner and extended
// attributes (security.selinux, user.*, …); nothing when old is missing.
func preserve(tmp *os.File, old string) error {
	fi, err := os.Stat(old)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid()) {
		if err := tmp.Chown(int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
	}
	size, err := unix.Listxattr(old, nil)
	if errors.Is(err, unix.ENOTSUP) || size <= 0 {
		return nil
	}
	if err != nil {
		return err
	}
	buf := make([]byte, size)
	n, err := unix.Listxattr(old, buf)
	if err != nil {
		return err
	}
	for _, name := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		vsize, err := unix.Getxattr(old, name, nil)
		if err != nil {
			return err
		}
		v := make([]byte, vsize)
		vn, err := unix.Getxattr(old, name, v)
		if err != nil {
			return err
		}
		if err := unix.Fsetxattr(int(tmp.Fd()), name, v[:vn], 0); err != nil {
			return err
		}
	}
	return nil
}
