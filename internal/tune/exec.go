package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
)

// ExecEnv runs trials as "tcptune bench -J" processes, where Command
// puts them (in a lab namespace, or here), and applies settings through
// the apply package in each of Namespaces.
type ExecEnv struct {
	Name string
	Self string // the tcptune binary
	// Command builds the command that runs argv at the client's end.
	Command    func(argv ...string) *exec.Cmd
	Host       string
	Port       int
	Namespaces []string // where settings apply; "" is this namespace
	// Apply are the apply options (backup directory, sysctl.d) used in
	// each namespace.
	Apply   apply.Options
	Rate    float64 // known link rate, 0 = unknown
	Payload float64 // known goodput, 0 = unknown
}

func (e *ExecEnv) Describe() string  { return e.Name }
func (e *ExecEnv) LinkRate() float64 { return e.Rate }
func (e *ExecEnv) Goodput() float64  { return e.Payload }

func (e *ExecEnv) run(ctx context.Context, argv ...string) ([]byte, error) {
	cmd := e.Command(append([]string{e.Self}, argv...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && out.Len() == 0 {
			return nil, fmt.Errorf("%s: %v: %s", argv[0], err, lastLine(errb.String()))
		}
		return out.Bytes(), nil
	case <-ctx.Done():
		interrupt(cmd.Process)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		return nil, context.Cause(ctx)
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// RTT is the median of ten TCP connects to the server's port.
func (e *ExecEnv) RTT(ctx context.Context) (time.Duration, error) {
	out, err := e.run(ctx, "ping", e.Host, "-p", strconv.Itoa(e.Port), "-c", "10", "-i", "0.05", "--json")
	if err != nil {
		return 0, err
	}
	var doc struct {
		Summary struct {
			Median float64 `json:"median"`
		} `json:"summary_ms"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || doc.Summary.Median <= 0 {
		return 0, fmt.Errorf("ping output: %q", lastLine(string(out)))
	}
	return time.Duration(doc.Summary.Median * 1e6), nil
}

// Trial runs one bench.
func (e *ExecEnv) Trial(ctx context.Context, s TrialSpec) (Trial, error) {
	argv := []string{"bench", "-c", e.Host, "-p", strconv.Itoa(e.Port), "-J",
		"-t", strconv.FormatFloat(s.Time.Seconds(), 'f', -1, 64),
		"-O", strconv.FormatFloat(s.Omit.Seconds(), 'f', -1, 64),
		"--connect-timeout", "5000"}
	if s.Parallel > 1 {
		argv = append(argv, "-P", strconv.Itoa(s.Parallel))
	}
	if s.Direction == Reverse {
		argv = append(argv, "-R")
	}
	out, err := e.run(ctx, argv...)
	if err != nil {
		return Trial{}, err
	}
	return parseTrial(out, s.Direction)
}

func (e *ExecEnv) opts(ns string) apply.Options {
	o := e.Apply
	o.NetNS, o.Persist, o.DryRun = ns, false, false
	return o
}

// Read reads the values where settings apply (the first namespace: all
// of them are set alike).
func (e *ExecEnv) Read(keys []string) (map[string]string, error) {
	return apply.Read(keys, e.opts(e.Namespaces[0]))
}

// Split keeps what every namespace accepts.
func (e *ExecEnv) Split(kvs []apply.KV) ([]apply.KV, []string, error) {
	var skipped []string
	for _, ns := range e.Namespaces {
		ok, sk, err := apply.Split(kvs, e.opts(ns))
		if err != nil {
			return nil, nil, err
		}
		kvs, skipped = ok, append(skipped, sk...)
	}
	return kvs, dedupe(skipped), nil
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Set applies kvs in every namespace, all or nothing. The backups are
// on disk while the values are live (a crash can be rolled back with
// "tcptune rollback"), and discarded once undone.
func (e *ExecEnv) Set(kvs []apply.KV) (func() error, error) {
	var done []*apply.Backup
	undo := func() error {
		var errs []error
		for i := len(done) - 1; i >= 0; i-- {
			o := e.opts(done[i].NetNS)
			if _, err := apply.Rollback(done[i].ID, o); err != nil {
				errs = append(errs, err)
				continue
			}
			apply.Discard(done[i].ID, o)
		}
		return errors.Join(errs...)
	}
	for _, ns := range e.Namespaces {
		b, _, err := apply.Apply(kvs, e.opts(ns))
		if err != nil {
			if b != nil {
				apply.Discard(b.ID, e.opts(ns))
			}
			return nil, errors.Join(err, undo())
		}
		done = append(done, b)
	}
	return undo, nil
}

// Keep applies kvs for good, with a backup for "tcptune rollback".
func (e *ExecEnv) Keep(kvs []apply.KV, persist bool) (string, error) {
	var ids []string
	for _, ns := range e.Namespaces {
		o := e.opts(ns)
		o.Persist = persist
		b, _, err := apply.Apply(kvs, o)
		if err != nil {
			return strings.Join(ids, ","), err
		}
		ids = append(ids, b.ID)
	}
	return strings.Join(ids, ","), nil
}

// NewPeerEnv tunes this host against the server at host:port: trials
// run here, settings apply in this namespace, and backups go where
// "tcptune rollback" finds them (o's backup directory).
func NewPeerEnv(self, host string, port int, o apply.Options) *ExecEnv {
	return &ExecEnv{
		Name:       fmt.Sprintf("this host → %s port %d", host, port),
		Self:       self,
		Command:    func(argv ...string) *exec.Cmd { return exec.Command(argv[0], argv[1:]...) },
		Host:       host,
		Port:       port,
		Namespaces: []string{""},
		Apply:      o,
	}
}
