package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tcptune/tcptune/internal/trust"
	"golang.org/x/sys/unix"
)

// Lock takes the host's change lock (flock on a file in the backup
// directory) for apply, rollback and tune while they change a host, so
// that one never undoes another's change made meanwhile. A second taker
// is refused with the holder's pid. unlock releases it.
func Lock(o Options) (unlock func(), err error) {
	o.defaults()
	if err := os.MkdirAll(o.BackupDir, 0o700); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	// Nothing is created in a directory others may write: a planted
	// link there would make the lock truncate someone else's file.
	if err := trust.Check(o.BackupDir, true); err != nil {
		return nil, fmt.Errorf("lock: backup directory: %w", err)
	}
	p := filepath.Join(o.BackupDir, lockName)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 || int(st.Uid) != os.Geteuid() {
		f.Close()
		return nil, fmt.Errorf("lock %s: not a regular file of its own (links %d, uid %d); refusing it", p, st.Nlink, st.Uid)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		holder := strings.TrimSpace(string(b[:n]))
		return nil, fmt.Errorf("another tcptune apply, rollback or tune is changing this host (%s, held by pid %s): wait for it to finish", p, holder)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
}
