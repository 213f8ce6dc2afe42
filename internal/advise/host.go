package advise

import (
	"cmp"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tcptune/tcptune/internal/sysctl"
)

// WithHost fills what the input leaves unknown from this host when both
// the advice and the host (goos, as runtime.GOOS) are Linux: the RAM
// (MemTotal of proc/meminfo under root) and tcp_mem's max. Elsewhere
// they stay unknown, and the memory budget says so.
func WithHost(in Input, goos, root string) Input {
	if in.OS != "linux" || goos != "linux" {
		return in
	}
	if in.Memory == 0 {
		in.Memory = memTotal(root)
	}
	in.Kernel = cmp.Or(in.Kernel, KernelRelease(root))
	if in.TCPMemMax == 0 {
		if v := (sysctl.FS{Root: root}).Int("net.ipv4.tcp_mem", 2); v > 0 {
			in.TCPMemMax = v * int64(os.Getpagesize())
		}
	}
	return in
}

// memTotal is MemTotal in bytes (0 if unreadable).
func memTotal(root string) int64 {
	b, err := os.ReadFile(filepath.Join(root, "proc/meminfo"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// KernelRelease is the Linux release of the system under root (its
// proc/sys/kernel/osrelease, as uname -r; "" where unreadable).
func KernelRelease(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "proc/sys/kernel/osrelease"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
