// Package lab builds emulated wide-area links on one machine: two
// network namespaces, tcptune-NAME-a and tcptune-NAME-b, joined by a pair
// of TUN devices through a relay process that applies rate, delay, loss
// and a drop-tail queue (package linkem). State lives under
// /run/tcptune/lab/NAME; the relay owns the link and removes it when it is
// stopped. Linux only; elsewhere every call says "not supported".
package lab

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tcptune/tcptune/internal/linkem"
	"github.com/tcptune/tcptune/internal/relay"
	"github.com/tcptune/tcptune/internal/trust"
	"github.com/tcptune/tcptune/internal/units"
)

// Config describes a link as the user asked for it.
type Config struct {
	Name  string        `json:"name"`
	Rate  float64       `json:"rate"`   // bit/s
	RTT   time.Duration `json:"rtt_ns"` // round trip; each way gets half
	Loss  float64       `json:"loss"`   // per segment, 0..0.5
	Queue int64         `json:"queue"`  // bytes; 0 = one BDP
	MTU   int           `json:"mtu"`
	// PathMTU is the largest packet the path between the ends carries
	// (0 = MTU, the interfaces' as built); a larger one is dropped with an ICMP
	// "fragmentation needed" from Router(), or silently with
	// PMTUBlackhole (linkem.Path).
	PathMTU       int  `json:"path_mtu,omitempty"`
	PMTUBlackhole bool `json:"pmtu_blackhole,omitempty"`
	// TxQueueLen is the hosts' interfaces' transmit ring, in packets
	// (0 = DefaultTxQueueLen): a TUN drops what the ring cannot hold,
	// outside the link model, as a host whose NIC queue is too short
	// for its bursts does (its tx_dropped counts them).
	TxQueueLen int `json:"txqueuelen,omitempty"`
	// Hub, if set, makes end a the shared namespace tcptune-hub-HUB: links
	// with the same hub form a star whose b ends reach each other through
	// it (it forwards; each b end routes 10.201.0.0/16 to it).
	Hub string `json:"hub,omitempty"`
	// Owner is the process that built the link for its own run (tcptune
	// tune --lab, lab run) and removes it when it ends; 0 for a link
	// made to stay (lab up). A link whose owner is gone was left by a
	// killed run: lab ls marks it, lab down --orphaned removes it.
	Owner int `json:"owner,omitempty"`
	// Reverse is the b→a direction where it differs from a→b (nil: the
	// link is symmetric): Rate, Loss and Queue above are then a→b's, and
	// the one-way delays are given apart (their sum is RTT).
	Reverse *Reverse `json:"reverse,omitempty"`
	// Capacity is a rate that changes over time, each way, in place of a
	// fixed one (nil: Rate); Rate then holds its mean.
	Capacity *linkem.Capacity `json:"capacity,omitempty"`
	// Reorder holds a share of packets back, each way, for later ones to
	// overtake (nil: none).
	Reorder *linkem.Reorder `json:"reorder,omitempty"`
	// Jitter varies each packet's one-way delay, each way (nil: none).
	Jitter *linkem.Jitter `json:"jitter,omitempty"`
	// CoDel manages each direction's queue (nil: drop-tail only).
	CoDel *linkem.CoDel `json:"codel,omitempty"`
	// Bursty is Gilbert-Elliott loss in place of Loss (nil: none).
	Bursty *linkem.GilbertElliott `json:"loss_gemodel,omitempty"`
	// PoliceRate and PoliceBurst are a token-bucket policer at the entry
	// of each direction (bit/s, bytes; none when the rate is 0): what
	// exceeds the contract rate is dropped, not queued.
	PoliceRate  float64 `json:"police_rate,omitempty"`
	PoliceBurst int64   `json:"police_burst,omitempty"`
	// Seed seeds the relay's random loss, so that a run can be repeated
	// (lab up --seed); 0 = from the clock, recorded when the link is up.
	Seed uint64 `json:"seed,omitempty"`
}

var nameRE = regexp.MustCompile(`^[a-z0-9-]{1,12}$`)

// ValidateName checks a link name: [a-z0-9-], at most 12 characters.
func ValidateName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("link name %q: use 1 to 12 characters of a-z, 0-9 and -", name)
	}
	return nil
}

// BDP is the link's bandwidth-delay product in bytes.
func (c Config) BDP() int64 { return int64(c.Rate * c.RTT.Seconds() / 8) }

// PathRate is the rate a long flow gets end to end: the link's, or a
// policer's below it.
func (c Config) PathRate() float64 {
	if c.PoliceRate > 0 && c.PoliceRate < c.Rate {
		return c.PoliceRate
	}
	return c.Rate
}

// PathBurst is what the path passes above PathRate after an idle
// moment, in wire bytes: a policer's full bucket (0 without one).
func (c Config) PathBurst() int64 {
	if c.PathRate() < c.Rate {
		return c.policeBurst()
	}
	return 0
}

// CarriedMTU is the largest packet that crosses the link: the hosts'
// MTU, or the path's when it is smaller (once PMTU discovery has found
// it).
func (c Config) CarriedMTU() int {
	if c.PathMTU > 0 && c.PathMTU < c.MTU {
		return c.PathMTU
	}
	return c.MTU
}

// DefaultRate and DefaultRTT are a link's where its Spec gives none.
const (
	DefaultRate = "1gbit"
	DefaultRTT  = "50ms"
)

// DefaultTxQueueLen is the lab's transmit ring: long enough that no
// TUN drops outside the model (link-emulation.md §5.3).
const DefaultTxQueueLen = 10000

// TxQLen is the transmit ring the hosts' interfaces get.
func (c Config) TxQLen() int {
	if c.TxQueueLen > 0 {
		return c.TxQueueLen
	}
	return DefaultTxQueueLen
}

// Model is the per-direction link model.
func (c Config) Model() linkem.Config {
	q := c.Queue
	if q == 0 {
		q = max(c.BDP(), minBDPQueue)
	}
	// The path carries what the hosts' interfaces were built with,
	// unless told otherwise: an interface raised later (tune trying
	// jumbo frames) meets a router that says so.
	path := c.PathMTU
	if path == 0 {
		path = c.MTU
	}
	delay := int64(c.RTT / 2)
	if c.Reverse != nil {
		delay = int64(c.Reverse.DelayAB)
	}
	return linkem.Config{Rate: c.Rate, Delay: delay, Loss: c.Loss, Queue: q,
		Path: linkem.Path{MTU: path, Blackhole: c.PMTUBlackhole}, Police: linkem.Policer{Rate: c.PoliceRate, Burst: c.policeBurst()},
		Bursty: c.bursty(), CoDel: c.codel(), Jitter: c.jitter(), Reorder: c.reorder(), Capacity: c.Capacity}
}

func (c Config) reorder() linkem.Reorder {
	if c.Reorder == nil {
		return linkem.Reorder{}
	}
	return *c.Reorder
}

func (c Config) jitter() linkem.Jitter {
	if c.Jitter == nil {
		return linkem.Jitter{}
	}
	return *c.Jitter
}

func (c Config) codel() linkem.CoDel {
	if c.CoDel == nil {
		return linkem.CoDel{}
	}
	return *c.CoDel
}

func (c Config) bursty() linkem.GilbertElliott {
	if c.Bursty == nil {
		return linkem.GilbertElliott{}
	}
	return *c.Bursty
}

// Reverse is an asymmetric link's b→a direction and its one-way delays.
type Reverse struct {
	Rate    float64       `json:"rate"`
	Loss    float64       `json:"loss"`
	Queue   int64         `json:"queue"`
	DelayAB time.Duration `json:"delay_ab_ns"`
	DelayBA time.Duration `json:"delay_ba_ns"`
	// Capacity is b→a's rate that changes over time where a→b's does
	// (Rate is then its mean): a→b's own, or a trace of its own.
	Capacity *linkem.Capacity `json:"capacity,omitempty"`
}

// ModelBA is the b→a direction's model: a→b's, but where Reverse
// differs.
func (c Config) ModelBA() linkem.Config {
	m := c.Model()
	if r := c.Reverse; r != nil {
		m.Rate, m.Loss, m.Delay, m.Capacity = r.Rate, r.Loss, int64(r.DelayBA), r.Capacity
		m.Queue = r.Queue
		if m.Queue == 0 {
			m.Queue = max(int64(r.Rate*c.RTT.Seconds()/8), minBDPQueue)
		}
	}
	return m
}

// Unlike names the flag whose value differs between the directions,
// the one-way delays apart ("": none). A link whose delays alone differ
// is alike both ways to TCP: each direction's flow sees their sum.
func (c Config) Unlike() string {
	ab, ba := c.Model(), c.ModelBA()
	switch {
	case ab.Rate != ba.Rate || ab.Capacity != ba.Capacity:
		return "--rate"
	case ab.Loss != ba.Loss:
		return "--loss"
	case ab.Queue != ba.Queue:
		return "--queue"
	}
	return ""
}

// policeBurst is the policer's bucket: as given, else 10 ms at its
// rate, at least 64 KB (a few TSO bursts).
func (c Config) policeBurst() int64 {
	if c.PoliceBurst > 0 || c.PoliceRate == 0 {
		return c.PoliceBurst
	}
	return max(int64(c.PoliceRate/8*0.010), 64<<10)
}

// Validate checks every field.
func (c Config) Validate() error {
	if err := ValidateName(c.Name); err != nil {
		return err
	}
	if c.Hub != "" {
		if err := ValidateName(c.Hub); err != nil {
			return fmt.Errorf("--hub: %w", err)
		}
	}
	if c.Rate < 1e3 || c.Rate > 40e9 {
		return fmt.Errorf("--rate %s out of range (1kbit .. 40gbit)", units.FormatRateShort(c.Rate))
	}
	if c.RTT < 0 || c.RTT > 10*time.Second {
		return fmt.Errorf("--rtt %v out of range (0 .. 10s)", c.RTT)
	}
	if c.MTU < 576 || c.MTU > 65000 {
		return fmt.Errorf("--mtu %d out of range (576 .. 65000)", c.MTU)
	}
	if c.PathMTU != 0 && (c.PathMTU < 576 || c.PathMTU > 65000) {
		return fmt.Errorf("--path-mtu %d out of range (576 .. 65000)", c.PathMTU)
	}
	if c.TxQueueLen < 0 || c.TxQueueLen > 1000000 {
		return fmt.Errorf("--txqueuelen %d out of range (1 .. 1000000 packets; 0 = %d)", c.TxQueueLen, DefaultTxQueueLen)
	}
	if c.PMTUBlackhole && c.PathMTU == 0 {
		return errors.New("--pmtu-blackhole: needs --path-mtu (the size above which packets vanish)")
	}
	if r := c.Reverse; r != nil && (c.Capacity == nil) != (r.Capacity == nil) {
		return errors.New("--rate-schedule/--rate-trace: an asymmetric --rate does not combine with them (give a trace per direction)")
	}
	if r := c.reorder(); r.Share != 0 {
		if err := (linkem.Config{Reorder: r}).Validate(); err != nil {
			return fmt.Errorf("--reorder: %w", err)
		}
	}
	if j := c.jitter(); j.Amount != 0 {
		if err := (linkem.Config{Jitter: j}).Validate(); err != nil {
			return fmt.Errorf("--jitter: %w", err)
		}
	}
	if q := c.codel(); q.Target != 0 {
		if err := (linkem.Config{CoDel: q}).Validate(); err != nil {
			return fmt.Errorf("--codel: %w", err)
		}
	}
	if b := c.bursty(); b.P > 0 {
		if err := (linkem.Config{Bursty: b, Loss: c.Loss}).Validate(); err != nil {
			return fmt.Errorf("--loss-gemodel: %w", err)
		}
	}
	if c.PoliceBurst != 0 && c.PoliceRate == 0 {
		return errors.New("--police-burst: needs --police (the rate the bucket fills at)")
	}
	if m := c.Model().Police; m.Rate > 0 {
		if err := (linkem.Config{Police: m}).Validate(); err != nil {
			return fmt.Errorf("--police: %w", err)
		}
	}
	if err := c.Model().Validate(); err != nil {
		return fmt.Errorf("link: %w", err)
	}
	if r := c.Reverse; r != nil {
		if r.Rate < 1e3 || r.Rate > 40e9 {
			return fmt.Errorf("--rate: b→a %s out of range (1kbit .. 40gbit)", units.FormatRateShort(r.Rate))
		}
		if r.DelayAB+r.DelayBA != c.RTT {
			return fmt.Errorf("--delay: the one-way delays add to %v, not the RTT %v", r.DelayAB+r.DelayBA, c.RTT)
		}
		if err := c.ModelBA().Validate(); err != nil {
			return fmt.Errorf("link b→a: %w", err)
		}
	}
	return nil
}

// minBDPQueue is the smallest queue a BDP multiple gives: a few TSO
// super-packets, since a queue smaller than one 64 KB burst drops part of
// every burst. An explicit size in bytes may be smaller.
const minBDPQueue = 256 << 10

// RunOptions are lab run's.
type RunOptions struct {
	NoServe bool      // do not start tcptune serve in end b
	Log     io.Writer // where the addresses are printed (nil = nowhere)
}

// ServePort is where lab run's tcptune serve listens (iperf3's port).
const ServePort = 5201

// SubstPeer replaces "{peer}" in each argument with addr.
func SubstPeer(argv []string, addr string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, "{peer}", addr)
	}
	return out
}

// Spec is a link as the command line gives it (--rate, --rtt, --loss,
// --queue, --mtu).
type Spec struct {
	// Rate, Loss and Queue take "A→B/B→A" for an asymmetric link; Delay
	// the one-way delays "A→B/B→A" in place of RTT ("" = RTT/2 each way).
	// Rate "" is DefaultRate (one of it and a schedule or a trace is
	// given, not both); RTT "" is DefaultRTT (one of it and Delay).
	Rate, RTT, Loss, Queue string
	Delay                  string
	Police, PoliceBurst    string // "" = none
	LossGE                 string // --loss-gemodel; "" = none
	CoDel                  string // --codel TARGET[,INTERVAL]; "" = none
	Jitter                 string // --jitter AMOUNT[,DIST]; "" = none
	Reorder                string // --reorder SHARE,GAP; "" = none
	// RateSchedule ("RATE:DURATION,...") and RateTrace (a Mahimahi
	// trace's contents) replace Rate with one that changes over time;
	// RateTraceBA is b→a's own trace ("" = RateTrace's each way).
	RateSchedule, RateTrace string
	RateTraceBA             string
	MTU, PathMTU, TxQLen    int
	PMTUBlackhole           bool
	Seed                    uint64
}

// ReadTraces reads --rate-trace's files: FILE (both ways) or A→B,B→A.
// It returns their contents, a→b's and b→a's ("" = a→b's each way).
func ReadTraces(files string) (ab, ba string, err error) {
	var trace [2]string
	for i, file := range strings.SplitN(files, ",", 2) {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("--rate-trace: %w", err)
		}
		trace[i] = string(b)
	}
	return trace[0], trace[1], nil
}

// ParseConfig reads and validates a Spec into a link's Config; errors
// name the flag and what it accepts.
func ParseConfig(name string, s Spec) (Config, error) {
	switch {
	case s.Delay != "" && s.RTT != "":
		return Config{}, errors.New("--delay: give --rtt or --delay (one-way delays), not both")
	case (s.RateSchedule != "" || s.RateTrace != "") && s.Rate != "":
		return Config{}, errors.New("--rate: give --rate or a --rate-schedule or --rate-trace, not both")
	}
	s.Rate, s.RTT = cmp.Or(s.Rate, DefaultRate), cmp.Or(s.RTT, DefaultRTT)
	c := Config{Name: name, MTU: s.MTU, PathMTU: s.PathMTU, PMTUBlackhole: s.PMTUBlackhole, TxQueueLen: s.TxQLen, Seed: s.Seed}
	var err error
	rateAB, rateBA, asym := strings.Cut(s.Rate, "/")
	if c.Rate, err = units.ParseRate(rateAB); err != nil {
		return c, fmt.Errorf("--rate: accepts a bit rate, e.g. 100mbit, 1gbit, 2.5G, or A→B/B→A, e.g. 100mbit/10mbit (got %q)", s.Rate)
	}
	rev := Reverse{Rate: c.Rate}
	if asym {
		if rev.Rate, err = units.ParseRate(rateBA); err != nil {
			return c, fmt.Errorf("--rate: accepts a bit rate, e.g. 100mbit, 1gbit, 2.5G, or A→B/B→A, e.g. 100mbit/10mbit (got %q)", s.Rate)
		}
	}
	if s.Delay != "" {
		ab, ba, two := strings.Cut(s.Delay, "/")
		if rev.DelayAB, err = units.ParseDuration(ab); err == nil {
			rev.DelayBA = rev.DelayAB
			if two {
				rev.DelayBA, err = units.ParseDuration(ba)
			}
		}
		if err != nil || rev.DelayAB < 0 || rev.DelayBA < 0 {
			return c, fmt.Errorf("--delay: accepts one-way delays A→B/B→A, e.g. 20ms/300ms (got %q)", s.Delay)
		}
		c.RTT, asym = rev.DelayAB+rev.DelayBA, asym || two
	} else if c.RTT, err = units.ParseDuration(s.RTT); err != nil {
		return c, fmt.Errorf("--rtt: accepts a duration, e.g. 50ms, 0.2s (got %q)", s.RTT)
	} else {
		rev.DelayAB, rev.DelayBA = c.RTT/2, c.RTT-c.RTT/2
	}
	if err := parseCapacity(&c, s); err != nil {
		return c, err
	}
	if c.Capacity != nil {
		rev.Rate, rev.Capacity = c.Rate, c.Capacity
	}
	if s.RateTraceBA != "" {
		if s.RateTrace == "" {
			return c, errors.New("--rate-trace: b→a's trace needs a→b's (A→B,B→A)")
		}
		if rev.Capacity, err = linkem.ReadTrace(strings.NewReader(s.RateTraceBA)); err != nil {
			return c, fmt.Errorf("--rate-trace: b→a: %w", err)
		}
		rev.Rate, asym = rev.Capacity.Mean(), true
	}
	lossAB, lossBA, two := strings.Cut(s.Loss, "/")
	if c.Loss, err = ParseLoss(lossAB); err != nil {
		return c, err
	}
	if rev.Loss = c.Loss; two {
		if rev.Loss, err = ParseLoss(lossBA); err != nil {
			return c, err
		}
		asym = true
	}
	queueAB, queueBA, two := strings.Cut(s.Queue, "/")
	if c.Queue, err = ParseQueue(queueAB, c.BDP()); err != nil {
		return c, err
	}
	if two || asym {
		if !two {
			queueBA = queueAB
		}
		if rev.Queue, err = ParseQueue(queueBA, int64(rev.Rate*c.RTT.Seconds()/8)); err != nil {
			return c, err
		}
		asym = true
	}
	if asym {
		c.Reverse = &rev
	}
	if s.Reorder != "" {
		share, gap, _ := strings.Cut(s.Reorder, ",")
		f, err := ParseLoss(share)
		g, gerr := units.ParseDuration(gap)
		if err != nil || gerr != nil || f <= 0 || g <= 0 {
			return c, fmt.Errorf("--reorder: accepts SHARE,GAP, the share of packets held back (up to 50%%) and by how long, e.g. 1%%,2ms (got %q)", s.Reorder)
		}
		c.Reorder = &linkem.Reorder{Share: f, Gap: int64(g)}
	}
	if s.Jitter != "" {
		terms := strings.Split(s.Jitter, ",")
		d, err := units.ParseDuration(terms[0])
		j := &linkem.Jitter{Amount: int64(d)}
		for _, t := range terms[1:] {
			switch {
			case t == "reorder" && !j.Overtake:
				j.Overtake = true
			case slices.Contains(linkem.JitterDists, t) && j.Dist == "":
				j.Dist = t
			default:
				err = errors.New(t)
			}
		}
		if err != nil || d <= 0 {
			return c, fmt.Errorf("--jitter: accepts AMOUNT[,DIST][,reorder] with DIST %s, e.g. 5ms, 5ms,normal or 5ms,pareto,reorder (got %q)", strings.Join(linkem.JitterDists, ", "), s.Jitter)
		}
		c.Jitter = j
	}
	if s.CoDel != "" {
		target, interval, two := strings.Cut(s.CoDel, ",")
		q := &linkem.CoDel{Interval: int64(100 * time.Millisecond)}
		d, err := units.ParseDuration(target)
		if q.Target = int64(d); err == nil && two {
			d, err = units.ParseDuration(interval)
			q.Interval = int64(d)
		}
		if err != nil || q.Target <= 0 {
			return c, fmt.Errorf("--codel: accepts TARGET[,INTERVAL], e.g. 5ms or 5ms,100ms (got %q)", s.CoDel)
		}
		c.CoDel = q
	}
	if s.LossGE != "" {
		if c.Bursty, err = ParseGEModel(s.LossGE); err != nil {
			return c, err
		}
	}
	if s.Police != "" {
		if c.PoliceRate, err = units.ParseRate(s.Police); err != nil {
			return c, fmt.Errorf("--police: accepts a bit rate, e.g. 50mbit, 1gbit (got %q)", s.Police)
		}
	}
	if s.PoliceBurst != "" {
		if c.PoliceBurst, err = units.ParseBytes(s.PoliceBurst); err != nil || c.PoliceBurst <= 0 {
			return c, fmt.Errorf("--police-burst: accepts a size, e.g. 64K, 2M (got %q)", s.PoliceBurst)
		}
	}
	return c, c.Validate()
}

// ParseLoss reads --loss: a fraction (0.0001) or a percentage (0.01%),
// 0 .. 50%.
func ParseLoss(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("--loss: accepts a fraction (0.0001) or a percentage (0.01%%), 0 .. 50%% (got %q)", s)
	}
	if strings.HasSuffix(s, "%") {
		v /= 100
	}
	if v < 0 || v > 0.5 {
		return 0, fmt.Errorf("--loss: accepts 0 .. 50%% (got %q)", s)
	}
	return v, nil
}

// parseCapacity reads --rate-schedule or --rate-trace into c, whose
// Rate becomes their mean (the queue's BDP is of it).
func parseCapacity(c *Config, s Spec) error {
	var err error
	switch {
	case s.RateSchedule != "" && s.RateTrace != "":
		return errors.New("--rate-schedule: give it or --rate-trace, not both")
	case s.RateSchedule != "":
		var rates []float64
		var durs []int64
		for _, step := range strings.Split(s.RateSchedule, ",") {
			r, d, ok := strings.Cut(strings.TrimSpace(step), ":")
			rate, rerr := units.ParseRate(r)
			dur, derr := units.ParseDuration(d)
			if !ok || rerr != nil || derr != nil {
				return fmt.Errorf("--rate-schedule: accepts RATE:DURATION,..., e.g. 100mbit:2s,20mbit:1s (got %q)", s.RateSchedule)
			}
			rates, durs = append(rates, rate), append(durs, int64(dur))
		}
		if c.Capacity, err = linkem.Schedule(rates, durs); err != nil {
			return fmt.Errorf("--rate-schedule: %w", err)
		}
	case s.RateTrace != "":
		if c.Capacity, err = linkem.ReadTrace(strings.NewReader(s.RateTrace)); err != nil {
			return fmt.Errorf("--rate-trace: %w", err)
		}
	default:
		return nil
	}
	c.Rate = c.Capacity.Mean()
	return nil
}

// ParseGEModel reads --loss-gemodel P[,R[,LOSS_BAD[,LOSS_GOOD]]], each a
// fraction or a percentage, with netem's defaults: R = 1 − P, LOSS_BAD
// (1 − h) = 100%, LOSS_GOOD (1 − k) = 0.
func ParseGEModel(s string) (*linkem.GilbertElliott, error) {
	bad := func() (*linkem.GilbertElliott, error) {
		return nil, fmt.Errorf("--loss-gemodel: accepts P[,R[,LOSS_BAD[,LOSS_GOOD]]], probabilities as fractions or percentages, P and R above 0, e.g. 1%%,25%% (got %q)", s)
	}
	parts := strings.Split(s, ",")
	if len(parts) > 4 {
		return bad()
	}
	v := make([]float64, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		f, err := strconv.ParseFloat(strings.TrimSuffix(p, "%"), 64)
		if err != nil || math.IsNaN(f) {
			return bad()
		}
		if strings.HasSuffix(p, "%") {
			f /= 100
		}
		if f < 0 || f > 1 {
			return bad()
		}
		v[i] = f
	}
	g := &linkem.GilbertElliott{P: v[0], R: 1 - v[0], LossBad: 1}
	if len(v) > 1 {
		g.R = v[1]
	}
	if len(v) > 2 {
		g.LossBad = v[2]
	}
	if len(v) > 3 {
		g.LossGood = v[3]
	}
	if g.P <= 0 || g.R <= 0 {
		return bad()
	}
	return g, nil
}

// ParseQueue reads --queue: "1bdp", "0.5bdp", or a size ("4M").
func ParseQueue(s string, bdp int64) (int64, error) {
	if v, ok := strings.CutSuffix(strings.ToLower(s), "bdp"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if v == "" {
			f, err = 1, nil
		}
		if err != nil || f <= 0 || f > 100 {
			return 0, fmt.Errorf("--queue %q: accepts a multiple of the BDP (0.1bdp .. 100bdp) or a size (e.g. 4M)", s)
		}
		return max(int64(f*float64(bdp)), minBDPQueue), nil
	}
	b, err := units.ParseBytes(s)
	if err != nil || b < 1600 {
		return 0, fmt.Errorf("--queue %q: accepts a multiple of the BDP (e.g. 1bdp) or a size of at least one packet (1600 bytes; e.g. 4M)", s)
	}
	return b, nil
}

// State is a link's record in its state directory.
type State struct {
	Config
	Index   int       `json:"index"`
	NSA     string    `json:"ns_a"`
	NSB     string    `json:"ns_b"`
	AddrA   string    `json:"addr_a"`
	AddrB   string    `json:"addr_b"`
	TunA    string    `json:"tun_a"`
	TunB    string    `json:"tun_b"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// Router is the address the path's router answers from (ICMP
// "fragmentation needed"): .254 of the link's /24, on neither end.
func (s State) Router() netip.Addr {
	a, err := netip.ParseAddr(s.AddrA)
	if err != nil || !a.Is4() {
		return netip.Addr{}
	}
	b := a.As4()
	b[3] = 254
	return netip.AddrFrom4(b)
}

// Stats is what the relay publishes about a link every second.
type Stats struct {
	AB      relay.DirStats `json:"a_to_b"`
	BA      relay.DirStats `json:"b_to_a"`
	Updated time.Time      `json:"updated"`
}

// Behind is what the relay added to the link's RTT: its mean lateness
// each way.
func (s Stats) Behind() time.Duration { return s.AB.Behind() + s.BA.Behind() }

// Since is the growth of the counters from an earlier snapshot p.
func (s Stats) Since(p Stats) Stats {
	return Stats{AB: s.AB.Since(p.AB), BA: s.BA.Since(p.BA), Updated: s.Updated}
}

// Faithful reports whether a relay that added behind to the RTT still
// emulated a link of idle RTT rtt within the lab's accuracy target
// (0.3 ms + 1% of the RTT, docs/lab.md); beyond it the path was longer
// than asked, and what depends on its RTT is the machine's.
func Faithful(behind, rtt time.Duration) bool {
	return behind <= 300*time.Microsecond+rtt/100
}

// WriteBehind says what a relay that added behind to the RTT rtt (on
// average, beyond the accuracy target: see Faithful) means for a test
// across it; who names the link.
func WriteBehind(w io.Writer, who string, behind, rtt time.Duration) {
	fmt.Fprintf(w, "%s: the relay fell behind: it added %s to the %s RTT on average, beyond the lab's 0.3 ms + 1%%: the path was longer than asked, so what depends on its RTT is this machine's, not the link's; emulate a lower rate on it\n",
		who, ms(behind), units.FormatDuration(rtt))
}

// ms is a relay's lateness in milliseconds: it matters from a tenth.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", d.Seconds()*1e3) }

// ReadStats is link name's latest published counters.
func ReadStats(name string) (Stats, error) {
	var s Stats
	err := readJSON(filepath.Join(stateDir(name), "stats.json"), &s)
	return s, err
}

// Link is a listed link.
type Link struct {
	State
	Alive bool `json:"alive"`
	// Orphaned: its owner (Config.Owner) no longer runs.
	Orphaned bool   `json:"orphaned,omitempty"`
	Stats    *Stats `json:"stats,omitempty"`
}

// StateDir is where link name keeps its state; it goes with the link,
// so an owner keeps its own temporary files there too.
func StateDir(name string) string { return stateDir(name) }

func owner(l Link) string {
	switch {
	case l.Owner == 0:
		return "-"
	case l.Orphaned:
		return fmt.Sprintf("%d gone", l.Owner)
	}
	return strconv.Itoa(l.Owner)
}

// Dir is where lab state lives: /run/tcptune/lab, or $TCPTUNE_RUN_DIR/lab.
func Dir() string {
	if d := os.Getenv("TCPTUNE_RUN_DIR"); d != "" {
		return filepath.Join(d, "lab")
	}
	return "/run/tcptune/lab"
}

func stateDir(name string) string { return filepath.Join(Dir(), name) }

// NamespaceName is the namespace of one end ("a" or "b").
func NamespaceName(link, side string) string { return "tcptune-" + link + "-" + side }

// HubNamespace is the namespace of hub, the shared end a of a star.
func HubNamespace(hub string) string { return "tcptune-hub-" + hub }

func newState(c Config, index int) State {
	nsa := NamespaceName(c.Name, "a")
	if c.Hub != "" {
		nsa = HubNamespace(c.Hub)
	}
	return State{Config: c, Index: index,
		NSA: nsa, NSB: NamespaceName(c.Name, "b"),
		AddrA: fmt.Sprintf("10.201.%d.1", index), AddrB: fmt.Sprintf("10.201.%d.2", index),
		TunA: fmt.Sprintf("tlab%da", index), TunB: fmt.Sprintf("tlab%db", index)}
}

// writeJSON writes v to path atomically (temporary file, then rename).
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// ReadState reads a link's state. Root acts on it (it names the
// namespaces lab down deletes and the relay it kills), so the state's
// directory and file must pass the checks a backup does (trust.Check):
// the user's own, writable by no one else, not links.
func ReadState(name string) (*State, error) {
	var s State
	p := filepath.Join(stateDir(name), "state.json")
	for _, c := range []struct {
		path string
		dir  bool
	}{{Dir(), true}, {stateDir(name), true}, {p, false}} {
		if err := trust.Check(c.path, c.dir); err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("lab %s: %w", name, err)
		}
	}
	if err := readJSON(p, &s); err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no lab link named %q (tcptune lab ls)", name)
		}
		return nil, fmt.Errorf("lab %s: %w", name, err)
	}
	return &s, nil
}

// Peer is the address of the other end of side.
func (s *State) Peer(side string) string {
	if side == "a" {
		return s.AddrB
	}
	return s.AddrA
}

// Namespace is the namespace of side.
func (s *State) Namespace(side string) string {
	if side == "a" {
		return s.NSA
	}
	return s.NSB
}

// WriteUp writes what lab up built: the ends, the link, the path's MTU
// when it is smaller, and the commands to try it.
func WriteUp(w io.Writer, st *State) {
	m := st.Model()
	extra := ""
	if r := st.Reverse; r != nil {
		extra = fmt.Sprintf(" a→b, %s b→a (one way %v and %v, loss %g%%, queue %s b→a)", units.FormatRateShort(r.Rate), r.DelayAB, r.DelayBA, r.Loss*100, units.FormatSize(float64(st.ModelBA().Queue)))
	}
	if cp := m.Capacity; cp != nil {
		kind := "schedule"
		if cp.Steps {
			kind = "trace"
		}
		extra += fmt.Sprintf(" on average (a %s repeating every %v", kind, time.Duration(cp.Period))
		if ba := st.ModelBA().Capacity; ba != cp {
			extra += fmt.Sprintf("; b→a's every %v", time.Duration(ba.Period))
		}
		extra += ")"
	}
	if r := m.Reorder; r.Share > 0 {
		extra += fmt.Sprintf(", %g%% held back %v", 100*r.Share, time.Duration(r.Gap))
	}
	if j := m.Jitter; j.Amount > 0 {
		extra += fmt.Sprintf(", jitter %v %s", time.Duration(j.Amount), cmp.Or(j.Dist, "uniform"))
		if j.Overtake {
			extra += " (reordering)"
		}
	}
	if q := m.CoDel; q.Target > 0 {
		extra += fmt.Sprintf(", CoDel target %v interval %v", time.Duration(q.Target), time.Duration(q.Interval))
	}
	if g := m.Bursty; g.P > 0 {
		extra += fmt.Sprintf(", Gilbert-Elliott loss p %g r %g (%.3g%% in runs of %.3g)", g.P, g.R, 100*g.P/(g.P+g.R)*g.LossBad+100*g.R/(g.P+g.R)*g.LossGood, 1/g.R)
	}
	if p := m.Police; p.Rate > 0 {
		extra += fmt.Sprintf(", policed at %s (burst %s)", units.FormatRateShort(p.Rate), units.FormatSize(float64(p.Burst)))
	}
	fmt.Fprintf(w, "lab %s up: %s (%s) ⇄ %s (%s), %s%s, RTT %s, loss %g%%, queue %s (BDP %s), MTU %d, txqueuelen %d, seed %d\n",
		st.Name, st.NSA, st.AddrA, st.NSB, st.AddrB, units.FormatRateShort(st.Rate), extra, st.RTT, st.Loss*100,
		units.FormatSize(float64(m.Queue)), units.FormatSize(float64(st.BDP())), st.MTU, st.TxQLen(), st.Seed)
	if st.PathMTU > 0 {
		what := "an ICMP \"fragmentation needed\" from " + st.Router().String()
		if st.PMTUBlackhole {
			what = "silently (a PMTU black hole)"
		}
		fmt.Fprintf(w, "path MTU %d: larger packets with DF are dropped with %s\n", st.PathMTU, what)
	}
	fmt.Fprintf(w, "try: tcptune lab exec %s b -- tcptune serve &  tcptune lab exec %s a -- tcptune bench -c %s\n", st.Name, st.Name, st.AddrB)
}

// WriteList writes links as lab ls's table.
func WriteList(w io.Writer, links []Link) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRATE\tRTT\tLOSS\tQUEUE\tNS_A\tNS_B\tADDR_A\tADDR_B\tRELAY\tOWNER\tA→B PKTS/BYTES/DROPS\tB→A PKTS/BYTES/DROPS\tRELAY BEHIND")
	for _, l := range links {
		state := "dead"
		if l.Alive {
			state = "alive"
		}
		ab, ba, behind := "-", "-", "-"
		if l.Stats != nil {
			ab = fmt.Sprintf("%d/%d/%d", l.Stats.AB.Packets, l.Stats.AB.Bytes, l.Stats.AB.Drops())
			ba = fmt.Sprintf("%d/%d/%d", l.Stats.BA.Packets, l.Stats.BA.Bytes, l.Stats.BA.Drops())
			behind = ms(l.Stats.Behind())
			if !Faithful(l.Stats.Behind(), l.RTT) {
				behind += " (beyond 0.3 ms + 1%)"
			}
		}
		rate := units.FormatRateShort(l.Rate)
		if r := l.Reverse; r != nil {
			rate += " / " + units.FormatRateShort(r.Rate)
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%g%%\t%s\t%s\t%s\t%s\t%s\t%d %s\t%s\t%s\t%s\t%s\n", l.Name, rate, l.RTT,
			l.Loss*100, units.FormatSize(float64(l.Model().Queue)), l.NSA, l.NSB, l.AddrA, l.AddrB, l.PID, state, owner(l), ab, ba, behind)
	}
	return tw.Flush()
}
