package engine

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/cpuusage"
	"github.com/tcptune/tcptune/internal/sockopt"
)

// Config describes how a test moves data.
type Config struct {
	BlockLen   int
	Rate       float64 // bit/s per stream (-b); 0 = unlimited
	ZeroCopy   bool
	UDP64      bool
	Interval   time.Duration // reporting interval; 0 = no interval reports
	Omit       time.Duration // -O: leading period left out of the totals
	Limit      *Limit        // client end condition by volume; nil on the server
	SkipRxCopy bool          // receive with MSG_TRUNC: count without copying (--skip-rx-copy)
	// NoDelay turns Nagle's algorithm off on the TCP streams (-N). Off,
	// it stays on, as in iperf3; Go's own default (no delay on every
	// connection) lets a sender whose buffer is full send a short
	// segment for every wake, and short segments carry less payload per
	// byte of send buffer.
	NoDelay bool
	// Procs is the process's GOMAXPROCS budget for streams that sleep
	// in the kernel holding a processor (rawio_linux.go); nil makes one.
	Procs      *Procs
	OnInterval func(Interval)
	// KeepIntervals keeps every interval for Intervals(); a long-lived
	// server leaves it off, so that its memory does not grow with a
	// test's length.
	KeepIntervals bool
	// Ticks, if set, replaces the interval clock: each value received
	// is the time of one sample (tests use it to simulate long tests).
	Ticks <-chan time.Time
	// RcvbufErrors, if set, reads the host's count of datagrams its UDP
	// sockets dropped for a full receive buffer (Udp RcvbufErrors); the
	// test keeps its rise over the test (RcvbufErrors).
	RcvbufErrors func() (int64, error)
}

// StreamInterval is one stream's figures over one reporting interval.
type StreamInterval struct {
	ID, Socket          int
	Start, End, Seconds float64
	Bytes               int64
	BitsPerSecond       float64
	Omitted             bool
	Sender, Reverse     bool
	UDP                 bool
	HasTCPInfo          bool
	Retransmits         int64
	SndCwnd, SndWnd     uint64
	RTT, RTTVar, PMTU   uint32
	Reorder             uint32
	// Delivered is the payload that reached the receiver in this
	// interval by the kernel's count (DeliveredBy says whose): unlike
	// application bytes it does not jump when a hole is filled; the
	// sender's count can run ahead of the path only by the ACKs held up
	// at the interval's start.
	Delivered     int64
	DeliveredBy   string
	Inflight      uint64 // sender: unacked segments × MSS at the sample
	Packets, Lost int64
	JitterMS      float64
}

// Interval is one reporting interval for all streams.
type Interval struct {
	Streams []StreamInterval
	Omitted bool
}

// StreamTotal is one stream's totals over the measured period.
type StreamTotal struct {
	ID, Socket      int
	Sender, Reverse bool
	UDP             bool
	Bytes           int64
	Seconds         float64
	HasTCPInfo      bool
	Retransmits     int64 // -1 when unknown or not the sender
	Spurious        int64 // of them, reported by the receiver as duplicates (tcpi_dsack_dups)
	Reorder         int64 // reorderings the sender saw (tcpi_reord_seen), iperf3 3.20+
	MaxCwnd         uint64
	MaxSndWnd       uint64
	// The receiver's view (a receiving stream): the mean window it
	// advertised (tcpi_rcv_wnd, Linux 6.2+; 0 where not reported) and
	// its mean RTT estimate (tcpi_rcv_rtt, µs) over the measured
	// period; MinRTT is then the socket's tcpi_min_rtt.
	MeanRcvWnd     uint64
	MeanRcvRTT     uint32
	MaxRTT, MinRTT uint32
	MeanRTT        uint32
	Packets, Lost  int64
	OOO            int64
	JitterMS       float64
	OmittedPackets int64
	OmittedLost    int64
	// Delivered is the payload the kernel counted as delivered over
	// the measured period: at a sender tcpi_delivered × the average
	// segment payload (it does not jump when a hole is filled), at a
	// receiver tcpi_bytes_received (it does). DeliveredBy is "sender",
	// "receiver" or "" (unknown).
	Delivered   int64
	DeliveredBy string
	// MeanInflight and MeanNotsent are the sender's measured bytes in
	// flight (unacked × MSS) and written but not yet sent, averaged over
	// the measured intervals.
	MeanInflight, MeanNotsent uint64
	// RTTSamples counts the samples of the smoothed RTT under load,
	// QueuedSamples those that showed a queue (attrib.Queued against
	// the socket's least RTT).
	RTTSamples, QueuedSamples uint64
	// Chronograph deltas over the measured period (µs) and the socket's
	// state at the end, for limit attribution.
	BusyUS, RwndUS, SndbufUS uint64
	SndBuf, RcvBuf           int
	Last                     *sockopt.TCPInfo
}

type tracker struct {
	prevBytes int64
	prevUDP   UDPStats
	prevRetr  uint32
	prevInfo  *sockopt.TCPInfo
	baseBytes int64
	baseUDP   UDPStats
	baseInfo  *sockopt.TCPInfo
	lastInfo  *sockopt.TCPInfo
	maxCwnd   uint64
	maxSndWnd uint64
	minRTT    uint32
	maxRTT    uint32
	sumRTT    uint64
	nRTT      uint64
	sumFlight uint64
	sumUnsent uint64
	nFlight   uint64
	sumRcvWnd uint64
	nRcvWnd   uint64
	sumRcvRTT uint64
	nRcvRTT   uint64
	nQueued   uint64
}

// evidencePerInterval is how many times per reporting interval a TCP
// socket's state is sampled for the means the attribution reads (bytes
// in flight and not yet sent, the smoothed RTT; a receiver's window and
// RTT). One sample at each interval's end would make a short test's
// verdict one snapshot: a stall of a few milliseconds just before it
// (a late router, a busy emulator) would read as a queue that stood the
// whole test. The RTT's least and largest are over the same samples;
// the largest cwnd and window stay those at interval ends, as iperf3
// reports them (the attribution compares the mean in flight with them).
const evidencePerInterval = 10

// observe adds one sample of a TCP socket's state to the means: the
// sender's in flight, not sent and smoothed RTT (with its extremes and
// whether it showed a queue), or the receiver's window and RTT estimate.
func (tr *tracker) observe(sender bool, info *sockopt.TCPInfo) {
	if !sender {
		if info.RcvWnd > 0 {
			tr.sumRcvWnd += uint64(info.RcvWnd)
			tr.nRcvWnd++
		}
		if info.RcvRTT > 0 {
			tr.sumRcvRTT += uint64(info.RcvRTT)
			tr.nRcvRTT++
		}
		return
	}
	tr.sumFlight += info.InflightBytes()
	tr.sumUnsent += uint64(info.NotsentBytes)
	tr.nFlight++
	if info.RTT > 0 {
		tr.sumRTT += uint64(info.RTT)
		tr.nRTT++
		if tr.minRTT == 0 || info.RTT < tr.minRTT {
			tr.minRTT = info.RTT
		}
		tr.maxRTT = max(tr.maxRTT, info.RTT)
		if attrib.Queued(uint64(info.RTT), uint64(info.MinRTT)) {
			tr.nQueued++
		}
	}
}

// observeLocked samples every TCP stream's state for the means, between
// the interval ends (which sample it too).
func (t *Test) observeLocked() {
	if t.omitting {
		return
	}
	for i, s := range t.Streams {
		if s.UDP {
			continue
		}
		if info := s.TCPInfo(); info != nil {
			t.track[i].observe(s.Sender, info)
		}
	}
}

// Test runs the data phase of one test over a set of streams.
type Test struct {
	cfg     Config
	Streams []*Stream

	stop     atomic.Bool
	stopOnce sync.Once
	wg       sync.WaitGroup
	quit     chan struct{}
	sampled  chan struct{}

	mu    sync.Mutex
	epoch time.Time
	// dropsBase and dropsEnd are Config.RcvbufErrors at the start and
	// the end (-1 unknown).
	dropsBase, dropsEnd int64
	measStart           time.Time
	lastTick            time.Time
	omitting            bool
	ended               time.Time
	track               []tracker
	intervals           []Interval
	cpuStart            cpuusage.Sample
	cpu                 cpuusage.Util
	totals              []StreamTotal
}

// NewTest prepares a test over streams.
func NewTest(cfg Config, streams []*Stream) *Test {
	if cfg.BlockLen <= 0 {
		cfg.BlockLen = 128 << 10
	}
	return &Test{cfg: cfg, Streams: streams, quit: make(chan struct{}), sampled: make(chan struct{}), track: make([]tracker, len(streams)), dropsBase: -1, dropsEnd: -1}
}

// Start begins moving data on every stream.
func (t *Test) Start() {
	now := time.Now()
	t.epoch, t.measStart, t.lastTick = now, now, now
	t.omitting = t.cfg.Omit > 0
	t.cpuStart = cpuusage.Now()
	t.dropsBase, t.dropsEnd = -1, -1
	if f := t.cfg.RcvbufErrors; f != nil {
		if n, err := f(); err == nil {
			t.dropsBase = n
		}
	}
	for i, s := range t.Streams {
		t.track[i].baseInfo = s.TCPInfo()
		t.track[i].prevInfo = t.track[i].baseInfo
	}
	rc := runConfig{blockLen: t.cfg.BlockLen, rate: t.cfg.Rate, zeroCopy: t.cfg.ZeroCopy, skipRxCopy: t.cfg.SkipRxCopy,
		counter: t.cfg.Limit, stop: &t.stop, udp64: t.cfg.UDP64, epoch: t.epoch}
	tcp := 0
	for _, s := range t.Streams {
		if !s.UDP && s.conn != nil {
			tcp++
		}
	}
	procs := t.cfg.Procs
	if procs == nil {
		procs = NewProcs()
	}
	for _, s := range t.Streams {
		if tc, ok := s.conn.(*net.TCPConn); ok {
			tc.SetNoDelay(t.cfg.NoDelay)
		}
	}
	granted, release := procs.Reserve(tcp)
	for _, s := range t.Streams {
		if granted > 0 && s.goRaw() {
			granted--
		}
	}
	for _, s := range t.Streams {
		t.wg.Add(1)
		go func(s *Stream) {
			defer t.wg.Done()
			s.run(rc)
		}(s)
	}
	go func() {
		t.wg.Wait()
		release()
	}()
	go t.sampler()
}

// RcvbufErrors is how many datagrams the host's UDP sockets dropped for
// a full receive buffer during the test (-1 when unknown).
func (t *Test) RcvbufErrors() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropsBase < 0 || t.dropsEnd < t.dropsBase {
		return -1
	}
	return t.dropsEnd - t.dropsBase
}

// Epoch is the test's time origin (UDP timestamps use it).
func (t *Test) Epoch() time.Time { return t.epoch }

// Started reports whether Start has run.
func (t *Test) Started() bool { return !t.epoch.IsZero() }

// Stopped reports whether Stop has begun.
func (t *Test) Stopped() bool { return t.stop.Load() }

// TotalBytes is the volume moved by all streams so far.
func (t *Test) TotalBytes() int64 {
	var n int64
	for _, s := range t.Streams {
		n += s.Bytes()
	}
	return n
}

// ReceivedBytes is the volume the streams this side receives on moved so far.
func (t *Test) ReceivedBytes() int64 {
	var n int64
	for _, s := range t.Streams {
		if !s.Sender {
			n += s.Bytes()
		}
	}
	return n
}

func (t *Test) sampler() {
	defer close(t.sampled)
	tick := t.cfg.Interval
	if tick <= 0 {
		tick = time.Second
	}
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	ticks := ticker.C
	if t.cfg.Ticks != nil {
		ticks = t.cfg.Ticks
	}
	// A simulated clock (Ticks) has no real time between its samples to
	// divide.
	var evidence <-chan time.Time
	if t.cfg.Ticks == nil {
		et := time.NewTicker(tick / evidencePerInterval)
		defer et.Stop()
		evidence = et.C
	}
	var omitC <-chan time.Time
	if t.omitting {
		tm := time.NewTimer(t.cfg.Omit)
		defer tm.Stop()
		omitC = tm.C
	}
	for {
		select {
		case <-t.quit:
			return
		case now := <-omitC:
			t.mu.Lock()
			t.sampleLocked(now, now.Sub(t.lastTick) > tick/10, nil)
			t.resetLocked(now)
			t.mu.Unlock()
			ticker.Reset(tick)
		case now := <-ticks:
			t.mu.Lock()
			t.sampleLocked(now, true, nil)
			t.mu.Unlock()
		case <-evidence:
			t.mu.Lock()
			t.observeLocked()
			t.mu.Unlock()
		}
	}
}

// resetLocked ends the omitted period: the totals start from here.
func (t *Test) resetLocked(now time.Time) {
	t.omitting = false
	t.measStart, t.lastTick = now, now
	for i, s := range t.Streams {
		tr := &t.track[i]
		tr.baseBytes = s.Bytes()
		tr.prevBytes = tr.baseBytes
		if s.UDP {
			tr.baseUDP = s.udpStats()
			tr.prevUDP = tr.baseUDP
		}
		if info := s.TCPInfo(); info != nil {
			tr.baseInfo = info
			tr.prevInfo = info
			tr.prevRetr = info.TotalRetrans
		}
	}
}

// sampleLocked closes the interval ending at now. infos, when given,
// are the streams' TCP_INFO taken at now; otherwise they are read here.
func (t *Test) sampleLocked(now time.Time, emit bool, infos []*sockopt.TCPInfo) {
	info := func(i int, s *Stream) *sockopt.TCPInfo {
		if infos != nil {
			return infos[i]
		}
		return s.TCPInfo()
	}
	iv := Interval{Omitted: t.omitting}
	start := t.lastTick.Sub(t.measStart).Seconds()
	end := now.Sub(t.measStart).Seconds()
	secs := now.Sub(t.lastTick).Seconds()
	for i, s := range t.Streams {
		tr := &t.track[i]
		cur := s.Bytes()
		si := StreamInterval{ID: s.ID, Socket: s.Socket, Start: start, End: end, Seconds: secs,
			Bytes: cur - tr.prevBytes, Omitted: t.omitting, Sender: s.Sender, Reverse: s.Reverse, UDP: s.UDP}
		if secs > 0 {
			si.BitsPerSecond = float64(si.Bytes) * 8 / secs
		}
		tr.prevBytes = cur
		if s.UDP {
			u := s.udpStats()
			si.Packets = u.Packets - tr.prevUDP.Packets
			si.Lost = u.Lost - tr.prevUDP.Lost
			si.JitterMS = u.JitterMS
			tr.prevUDP = u
		} else if !s.Sender {
			if info := info(i, s); info != nil {
				si.Delivered, si.DeliveredBy = info.ReceivedSince(tr.prevInfo), "receiver"
				tr.prevInfo, tr.lastInfo = info, info
				if !t.omitting {
					tr.observe(false, info)
				}
			}
		} else {
			if info := info(i, s); info != nil {
				si.Delivered, si.DeliveredBy = info.DeliveredSince(tr.prevInfo), "sender"
				si.Inflight = info.InflightBytes()
				tr.prevInfo = info
				si.HasTCPInfo = true
				si.Retransmits = int64(info.TotalRetrans) - int64(tr.prevRetr)
				tr.prevRetr = info.TotalRetrans
				si.SndCwnd = info.CwndBytes()
				si.SndWnd = uint64(info.SndWnd)
				si.RTT, si.RTTVar, si.PMTU, si.Reorder = info.RTT, info.RTTVar, info.PMTU, info.ReordSeen
				tr.lastInfo = info
				if !t.omitting {
					tr.observe(true, info)
					tr.maxCwnd = max(tr.maxCwnd, si.SndCwnd)
					tr.maxSndWnd = max(tr.maxSndWnd, si.SndWnd)
				}
			}
		}
		iv.Streams = append(iv.Streams, si)
	}
	t.lastTick = now
	if emit && t.cfg.Interval > 0 {
		if t.cfg.KeepIntervals {
			t.intervals = append(t.intervals, iv)
		}
		if t.cfg.OnInterval != nil {
			t.cfg.OnInterval(iv)
		}
	}
}

// Stop ends the data phase: senders stop, blocked reads and writes
// return, a last partial interval is reported and totals are computed.
// It is safe to call more than once.
func (t *Test) Stop() {
	t.stopOnce.Do(func() {
		t.stop.Store(true)
		// The kernel's counters at the end, before anything waits: the
		// data still queued keeps being delivered after the writers stop,
		// and must not count in a period that ends now. The period ends
		// when they have been read, not before: a goroutine preempted
		// between the clock and the reads (two busy cores) would count
		// bytes delivered after the period's end, a rate above the path.
		var final []*sockopt.TCPInfo
		if !t.epoch.IsZero() {
			final = make([]*sockopt.TCPInfo, len(t.Streams))
			for i, s := range t.Streams {
				final[i] = s.TCPInfo()
			}
			if f := t.cfg.RcvbufErrors; f != nil && t.dropsBase >= 0 {
				if n, err := f(); err == nil {
					t.dropsEnd = n
				}
			}
		}
		now := time.Now()
		for _, s := range t.Streams {
			s.stopped.Store(true)
			s.interrupt()
		}
		close(t.quit)
		if !t.epoch.IsZero() {
			<-t.sampled
		}
		t.wg.Wait()
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.epoch.IsZero() {
			return
		}
		t.ended = now
		// The last partial interval is reported unless it is a sliver;
		// TCP_INFO is read in any case.
		t.sampleLocked(now, now.Sub(t.lastTick) > t.cfg.Interval/20, final)
		if t.omitting { // stopped inside the omit period: nothing measured
			t.resetLocked(now)
		}
		t.cpu = cpuusage.Between(t.cpuStart, cpuusage.Now())
		t.totals = t.computeTotals()
	})
}

func (t *Test) computeTotals() []StreamTotal {
	secs := t.ended.Sub(t.measStart).Seconds()
	out := make([]StreamTotal, len(t.Streams))
	for i, s := range t.Streams {
		tr := &t.track[i]
		st := StreamTotal{ID: s.ID, Socket: s.Socket, Sender: s.Sender, Reverse: s.Reverse, UDP: s.UDP,
			Bytes: s.Bytes() - tr.baseBytes, Seconds: secs, Retransmits: -1}
		if s.UDP {
			u := s.udpStats()
			st.Packets = u.Packets - tr.baseUDP.Packets
			st.Lost = u.Lost - tr.baseUDP.Lost
			st.OOO = u.OOO - tr.baseUDP.OOO
			st.JitterMS = u.JitterMS
			st.OmittedPackets, st.OmittedLost = tr.baseUDP.Packets, tr.baseUDP.Lost
		}
		if !s.UDP && tr.lastInfo != nil {
			if s.Sender {
				st.Delivered, st.DeliveredBy = tr.lastInfo.DeliveredSince(tr.baseInfo), "sender"
			} else {
				st.Delivered, st.DeliveredBy = tr.lastInfo.ReceivedSince(tr.baseInfo), "receiver"
				st.Last = tr.lastInfo
				st.MinRTT = tr.lastInfo.MinRTT
				if tr.nRcvWnd > 0 {
					st.MeanRcvWnd = tr.sumRcvWnd / tr.nRcvWnd
				}
				if tr.nRcvRTT > 0 {
					st.MeanRcvRTT = uint32(tr.sumRcvRTT / tr.nRcvRTT)
				}
			}
		}
		if s.Sender && !s.UDP && tr.lastInfo != nil {
			last := tr.lastInfo
			if tr.nFlight > 0 {
				st.MeanInflight, st.MeanNotsent = tr.sumFlight/tr.nFlight, tr.sumUnsent/tr.nFlight
			}
			st.HasTCPInfo = true
			st.Last = last
			base := tr.baseInfo
			if base == nil {
				base = &sockopt.TCPInfo{}
			}
			st.Retransmits = int64(last.TotalRetrans) - int64(base.TotalRetrans)
			st.Spurious = int64(last.DsackDups) - int64(base.DsackDups)
			st.Reorder = int64(last.ReordSeen) - int64(base.ReordSeen)
			st.MaxCwnd, st.MaxSndWnd = tr.maxCwnd, tr.maxSndWnd
			st.MinRTT, st.MaxRTT = tr.minRTT, tr.maxRTT
			if tr.nRTT > 0 {
				st.MeanRTT = uint32(tr.sumRTT / tr.nRTT)
			}
			st.RTTSamples, st.QueuedSamples = tr.nRTT, tr.nQueued
			st.BusyUS = sub(last.BusyTime, base.BusyTime)
			st.RwndUS = sub(last.RwndLimited, base.RwndLimited)
			st.SndbufUS = sub(last.SndbufLimited, base.SndbufLimited)
		}
		if rc := s.RawConn(); rc != nil && !s.UDP {
			st.SndBuf, st.RcvBuf, _ = sockopt.Buffers(rc)
		}
		out[i] = st
	}
	return out
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// Totals are the per-stream totals; valid after Stop.
func (t *Test) Totals() []StreamTotal {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.totals
}

// Intervals are the reported intervals (with Config.KeepIntervals);
// valid after Stop.
func (t *Test) Intervals() []Interval {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.intervals
}

// CPU is this process's CPU use over the test; valid after Stop.
func (t *Test) CPU() cpuusage.Util {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cpu
}

// Duration is the measured period (after any omit); valid after Stop.
func (t *Test) Duration() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ended.Sub(t.measStart)
}

// Period is the measured period's start and end (wall clock); valid
// after Stop.
func (t *Test) Period() (from, to time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.measStart, t.ended
}

// CloseStreams closes every stream's socket.
func (t *Test) CloseStreams() {
	for _, s := range t.Streams {
		s.Close()
	}
}
