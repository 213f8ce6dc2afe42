package apply

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A rewrite keeps the old file's owner, mode and extended attributes,
// and writes through a symbolic link rather than replacing it.
func TestWriteKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.conf")
	os.WriteFile(real, []byte("old\n"), 0o640)
	if err := unix.Setxattr(real, "user.tcptune-test", []byte("label"), 0); err != nil {
		t.Fatalf("this file system takes no user xattrs: %v", err)
	}
	if os.Geteuid() == 0 {
		os.Chown(real, 12345, 54321)
	}
	link := filepath.Join(dir, "link.conf")
	os.Symlink("real.conf", link)
	if err := writeFileDurably(link, []byte("new\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if readString(real) != "new\n" {
		t.Fatalf("not written through: %q", readString(real))
	}
	buf := make([]byte, 64)
	if n, err := unix.Getxattr(real, "user.tcptune-test", buf); err != nil || string(buf[:n]) != "label" {
		t.Errorf("xattr lost: %v", err)
	}
	fi, _ := os.Stat(real)
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); os.Geteuid() == 0 && (!ok || st.Uid != 12345 || st.Gid != 54321) {
		t.Errorf("owner lost: %+v", fi.Sys())
	}
	// A link to a directory is refused.
	os.Symlink(".", filepath.Join(dir, "dir.conf"))
	if err := writeFileDurably(filepath.Join(dir, "dir.conf"), []byte("x"), 0o644); err == nil {
		t.Error("wrote through a link to a directory")
	}
}
