package tune

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/lab"
	"github.com/tcptune/tcptune/internal/linkset"
	"github.com/tcptune/tcptune/internal/pmtu"
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
	// BurstBytes is what the path passes above Rate after an idle
	// moment (a policer's bucket), in wire bytes.
	BurstBytes int64
	Both       bool // settings apply at both ends (the lab)
	// Lab is the lab link the trials cross ("" = none), and labStart its
	// relay's counters when the run began: the relay may fall behind on
	// a busy machine, and the report says so.
	Lab      string
	LabRTT   time.Duration
	labStart lab.Stats
	// Devices are the interfaces toward the other end, one per
	// namespace (nil: tune changes no interface). A link key names the
	// first; in each namespace it is set on that namespace's own.
	Devices []string
	// Probe, when set, finds the largest packet the path to the peer
	// carries, up to max (package pmtu), from where the trials run.
	Probe func(ctx context.Context, max int) (pmtu.Result, error)
	// RouteFn, without Devices, finds the interface toward the peer and
	// its MTU (netlink), which tune reads but does not change.
	RouteFn func() (iface string, mtu int, err error)
}

// Route is the interface toward the peer where the trials run, and its
// MTU.
func (e *Setup) Route() (string, int, error) {
	if dev := e.Device(); dev != "" {
		key := linkset.Key(dev, "mtu")
		v, err := e.Read([]string{key})
		if err != nil {
			return "", 0, err
		}
		mtu, err := strconv.Atoi(v[key])
		if err != nil {
			return "", 0, fmt.Errorf("%s: %q", key, v[key])
		}
		return dev, mtu, nil
	}
	if e.RouteFn == nil {
		return "", 0, errors.New("no route to the peer known")
	}
	return e.RouteFn()
}

// Device is the interface toward the peer where the trials run ("" =
// none tune may change).
func (e *Setup) Device() string {
	if len(e.Devices) == 0 {
		return ""
	}
	return e.Devices[0]
}

// PathMTU probes the path (see Probe).
func (e *Setup) PathMTU(ctx context.Context, max int) (pmtu.Result, error) {
	if e.Probe == nil {
		return pmtu.Result{}, errors.New("no path MTU probe here")
	}
	return e.Probe(ctx, max)
}

// local rewrites link keys (which name Devices[0]) for namespace i's
// own interface; global names namespace i's interface as Devices[0], as
// tune knows it.
func (e *Setup) local(i int, kvs []apply.KV) []apply.KV {
	if i == 0 || i >= len(e.Devices) {
		return kvs
	}
	return renameDevice(kvs, e.Devices[0], e.Devices[i])
}

func (e *Setup) global(i int, kvs []apply.KV) []apply.KV {
	if i == 0 || i >= len(e.Devices) {
		return kvs
	}
	return renameDevice(kvs, e.Devices[i], e.Devices[0])
}

// renameDevice moves the link keys of interface from to interface to.
func renameDevice(kvs []apply.KV, from, to string) []apply.KV {
	out := slices.Clone(kvs)
	for j, kv := range out {
		if dev, attr, err := linkset.Parse(kv.Key); err == nil && dev == from {
			out[j].Key = linkset.Key(to, attr)
		}
	}
	return out
}

// Relay is what the lab's relay added to the RTT since the run began,
// and whether that is within the lab's accuracy target (lab.Faithful);
// ok is false off a lab.
func (e *Setup) Relay() (behind time.Duration, faithful, ok bool) {
	if e.Lab == "" {
		return 0, true, false
	}
	s, err := lab.ReadStats(e.Lab)
	if err != nil {
		return 0, true, false
	}
	b := s.Since(e.labStart).Behind()
	return b, lab.Faithful(b, e.LabRTT), true
}

func (e *Setup) Describe() string  { return e.Name }
func (e *Setup) Peer() string      { return e.PeerAddr }
func (e *Setup) LinkRate() float64 { return e.Rate }
func (e *Setup) Goodput() float64  { return e.Payload }
func (e *Setup) Burst() int64      { return e.BurstBytes }
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
	for i, ns := range e.Namespaces {
		ok, sk, err := apply.Split(e.local(i, kvs), e.opts(ns))
		if err != nil {
			return nil, nil, err
		}
		kvs, skipped = e.global(i, ok), append(skipped, sk...)
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
	for i, ns := range e.Namespaces {
		o := e.opts(ns)
		o.TrialPID = os.Getpid() // a trial: Interrupted finds it if this process dies
		b, _, err := apply.Apply(e.local(i, kvs), o)
		if err != nil {
			// A backup whose values were all put back is discarded; one
			// left partly restored is the only record of what the host
			// held: it stays, and rollback names it.
			if b != nil && b.State == "restored" {
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
	for i, ns := range e.Namespaces {
		o := e.opts(ns)
		o.Persist = persist
		b, _, err := apply.Apply(e.local(i, kvs), o)
		if err != nil {
			return strings.Join(ids, ","), err
		}
		if b != nil { // nil: nothing to change there
			ids = append(ids, b.ID)
		}
	}
	return strings.Join(ids, ","), nil
}

// OpenLab is NewLabEnv with this executable serving in end b.
func OpenLab(ctx context.Context, c lab.Config) (env *Setup, close func(), err error) {
	if c.Capacity != nil {
		return nil, nil, errors.New("tune --lab: takes a link of one rate (its goodput is one figure); tune one whose rate changes with tune --peer against tcptune serve in its end b")
	}
	// Both ends carry the same settings over the link, and one
	// direction's screening stands for both: the directions must be
	// alike but for their one-way delays.
	if f := c.Unlike(); f != "" {
		return nil, nil, fmt.Errorf("%s: tune --lab takes one value both ways (its settings and screenings stand for both directions); tune an asymmetric lab link with tune --peer against tcptune serve in its end b", f)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	return NewLabEnv(ctx, c, self)
}

// OpenPeer is NewPeerEnv with the guards a run on a real host needs:
// it takes apply's lock (no apply, rollback or other tune meanwhile)
// and refuses to start over what an interrupted run left changed
// (Interrupted). release drops the lock.
func OpenPeer(host string, port int, o apply.Options) (env *Setup, release func(), err error) {
	unlock, err := apply.Lock(o)
	if err != nil {
		return nil, nil, err
	}
	if err := Interrupted(o); err != nil {
		unlock()
		return nil, nil, err
	}
	return NewPeerEnv(host, port, o), unlock, nil
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
		RouteFn:    func() (string, int, error) { return routeLink(host) },
		Probe: func(ctx context.Context, max int) (pmtu.Result, error) {
			dst, err := resolve4(ctx, host)
			if err != nil {
				return pmtu.Result{}, err
			}
			e, err := pmtu.OpenEcho(dst)
			if err != nil {
				return pmtu.Result{}, err
			}
			defer e.Close()
			return pmtu.Search(ctx, e, pmtu.Options{Base: min(1200, max), Max: max, Tries: 3, Step: 16})
		},
	}
}

// resolve4 is host's IPv4 address.
func resolve4(ctx context.Context, host string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap(), nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip4", host)
	if err != nil || len(ips) == 0 {
		return netip.Addr{}, fmt.Errorf("resolve %s: %v", host, err)
	}
	return ips[0], nil
}
