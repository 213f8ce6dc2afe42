package tune

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tcptune/tcptune/internal/apply"
)

// Setup is an Env: a Measurer for the trials, and the namespaces where
// settings apply through the apply package (with a backup per change).
type Setup struct {
	Measurer
	Name       string
	PeerAddr   string
	Namespaces []string // where settings apply; "" is this namespace
	// Apply are the apply options (backup directory, sysctl.d) used in
	// each namespace.
	Apply   apply.Options
	Rate    float64 // known link rate, 0 = unknown
	Payload float64 // known goodput, 0 = unknown
	Both    bool    // settings apply at both ends (the lab)
}

func (e *Setup) Describe() string  { return e.Name }
func (e *Setup) Peer() string      { return e.PeerAddr }
func (e *Setup) LinkRate() float64 { return e.Rate }
func (e *Setup) Goodput() float64  { return e.Payload }
func (e *Setup) BothEnds() bool    { return e.Both }

func (e *Setup) opts(ns string) apply.Options {
	o := e.Apply
	o.NetNS, o.Persist, o.DryRun, o.TrialPID = ns, false, false, 0
	return o
}

// Read reads the values where settings apply (the first namespace: all
// of them are set alike).
func (e *Setup) Read(keys []string) (map[string]string, error) {
	return apply.Read(keys, e.opts(e.Namespaces[0]))
}

// Split keeps what every namespace accepts.
func (e *Setup) Split(kvs []apply.KV) ([]apply.KV, []string, error) {
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
func (e *Setup) Set(kvs []apply.KV) (func() error, error) {
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
		o := e.opts(ns)
		o.TrialPID = os.Getpid() // a trial: Interrupted finds it if this process dies
		b, _, err := apply.Apply(kvs, o)
		if err != nil {
			if b != nil {
				apply.Discard(b.ID, e.opts(ns))
			}
			return nil, errors.Join(err, undo())
		}
		if b != nil { // nil: the namespace already had these values
			done = append(done, b)
		}
	}
	return undo, nil
}

// Keep applies kvs for good, with a backup for "tcptune rollback".
func (e *Setup) Keep(kvs []apply.KV, persist bool) (string, error) {
	var ids []string
	for _, ns := range e.Namespaces {
		o := e.opts(ns)
		o.Persist = persist
		b, _, err := apply.Apply(kvs, o)
		if err != nil {
			return strings.Join(ids, ","), err
		}
		if b != nil { // nil: nothing to change there
			ids = append(ids, b.ID)
		}
	}
	return strings.Join(ids, ","), nil
}

// NewPeerEnv tunes this host against the server at host:port: trials
// run here, settings apply in this namespace, and backups go where
// "tcptune rollback" finds them (o's backup directory). The peer's own
// settings are out of reach: where they limit, tune says so.
func NewPeerEnv(host string, port int, o apply.Options) *Setup {
	return &Setup{
		Measurer:   Measurer{Host: host, Port: port},
		Name:       fmt.Sprintf("this host → %s port %d", host, port),
		PeerAddr:   host,
		Namespaces: []string{""},
		Apply:      o,
	}
}
