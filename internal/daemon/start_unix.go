//go:build unix

package daemon

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// Start runs this program again with its command line, detached from the
// terminal (a new session, standard input and output on /dev/null or the
// log file) and marked as the daemon (IsChild), and returns once it has
// started: the caller then exits, as iperf3 -D does.
func Start(logfile string) (pid int, err error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("-D: %w", err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("-D: %w", err)
	}
	defer null.Close()
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Args[0] = os.Args[0] // keep the name: "iperf3" selects the drop-in
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	if logfile != "" {
		f, err := OpenLog(logfile)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		cmd.Stdout, cmd.Stderr = f.(*os.File), f.(*os.File)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("-D: %w", err)
	}
	pid = cmd.Process.Pid
	cmd.Process.Release()
	return pid, nil
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
