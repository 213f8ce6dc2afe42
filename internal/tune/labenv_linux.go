package tune

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/lab"
	"github.com/tcptune/tcptune/internal/units"
)

// LabPort is the port of the server tune starts in a lab link's end b.
const LabPort = 5201

// NewLabEnv brings up a lab link, starts "tcptune serve" in its end b,
// and returns an Env whose trials run from end a and whose settings are
// applied in both namespaces (each end's tcp_rmem and tcp_wmem are its
// own). close stops the server and removes the link.
func NewLabEnv(ctx context.Context, c lab.Config, self string) (env *Setup, close func(), err error) {
	c.Owner = os.Getpid()
	st, err := lab.Up(c)
	if err != nil {
		return nil, nil, err
	}
	// The trials' backups live with the link: lab down removes them
	// with it, also after a killed run (lab down --orphaned).
	backups := filepath.Join(lab.StateDir(c.Name), "tune-backups")
	srv := lab.Command(self, c.Name, "b", self, "serve", "-p", strconv.Itoa(LabPort))
	close = func() {
		if srv.Process != nil {
			srv.Process.Kill()
			srv.Wait()
		}
		lab.Down(c.Name)
		os.RemoveAll(backups)
	}
	if err := srv.Start(); err != nil {
		close()
		return nil, nil, fmt.Errorf("start the server in %s: %w", st.NSB, err)
	}
	if err := waitListening(ctx, srv.Process.Pid, LabPort, 10*time.Second); err != nil {
		close()
		return nil, nil, err
	}
	mss := float64(c.MTU - 52) // IPv4 + TCP + timestamps
	env = &Setup{
		Measurer:   Measurer{Host: st.AddrB, Port: LabPort, NetNS: st.NSA},
		Name:       fmt.Sprintf("lab %s × %s (loss %g%%), %s ⇄ %s", units.FormatRateShort(c.Rate), units.FormatDuration(c.RTT), c.Loss*100, st.AddrA, st.AddrB),
		PeerAddr:   st.AddrB,
		Namespaces: []string{st.NSA, st.NSB},
		Apply:      apply.Options{BackupDir: backups},
		Rate:       c.Rate,
		Payload:    c.Rate * mss / float64(c.MTU),
		Both:       true,
	}
	return env, close, nil
}

// waitListening waits until process pid (in its namespace) listens on
// port, reading its /proc/PID/net/tcp.
func waitListening(ctx context.Context, pid, port int, timeout time.Duration) error {
	want := fmt.Sprintf(":%04X", port)
	deadline := time.Now().Add(timeout)
	for {
		for _, f := range []string{"tcp", "tcp6"} {
			if listening(filepath.Join("/proc", strconv.Itoa(pid), "net", f), want) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server in the lab did not listen on port %d within %v", port, timeout)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func listening(path, port string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local_address rem_address st ...; st 0A = LISTEN
		if len(fields) > 3 && strings.HasSuffix(fields[1], port) && fields[3] == "0A" {
			return true
		}
	}
	return false
}
