package apply

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeFileDurably replaces path with data: temporary file in the same
// directory, the old file's owner, extended attributes (its SELinux
// label among them) copied, fsync, rename, fsync of the directory. A
// path that is a symbolic link is written through: the file it points
// to is replaced, the link kept. Directories it creates are fsynced
// into their parents.
func writeFileDurably(path string, data []byte, mode os.FileMode) (err error) {
	path, err = throughLinks(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := mkdirDurably(dir); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := preserve(f, path); err != nil {
		f.Close()
		return fmt.Errorf("%s: keep its owner and attributes: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// removeDurably removes path (written through a symbolic link, as
// writeFileDurably writes) and fsyncs its directory; a missing file is
// no error.
func removeDurably(path string) error {
	path, err := throughLinks(path)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	return syncDir(filepath.Dir(path))
}

// throughLinks is the file path names: path itself, or the regular
// file a symbolic link at path points to (a link to anything else is
// refused). A missing path is itself.
func throughLinks(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return path, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s: a symbolic link that does not resolve (%v); refusing to replace it", path, err)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: a symbolic link to %s, not to a regular file; refusing to write it", path, real)
	}
	return real, nil
}

// mkdirDurably creates dir and its missing parents, each fsynced into
// its parent so that a power loss keeps the new file's path.
func mkdirDurably(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := syncDir(filepath.Dir(missing[i])); err != nil {
			return err
		}
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
