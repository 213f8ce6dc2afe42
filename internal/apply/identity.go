package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// fsRoot is the root /proc is read under: o.FS's fixture, or "/".
func (o Options) fsRoot() string {
	if o.FS.Root == "" {
		return "/"
	}
	return o.FS.Root
}

// bootID is this boot's identity (kernel.random.boot_id), "" if unread.
func bootID(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "proc", "sys", "kernel", "random", "boot_id"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// startTime is process pid's start time in clock ticks after boot
// (field 22 of /proc/PID/stat), 0 if it does not run or is unread.
func startTime(root string, pid int) uint64 {
	b, err := os.ReadFile(filepath.Join(root, "proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// The command (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// sum is the SHA-256 of data, in hex.
func sum(data string) string {
	h := sha256.Sum256([]byte(data))
	return hex.EncodeToString(h[:])
}
