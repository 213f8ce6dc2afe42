package tune

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/drops"
	"github.com/tcptune/tcptune/internal/linkset"
)

const keyBacklog = "net.core.netdev_max_backlog"

// queueDrops sums what this host's queues dropped over every trial so
// far: the transmit queue of each interface, and the receive backlog.
type queueDrops struct {
	tx      map[string]int64 // interface → tx_dropped + qdisc drops
	backlog int64
	limit   int64       // netdev_max_backlog as a trial read it
	dirs    []Direction // where any dropped
}

func (r *runner) queueDrops() queueDrops {
	q := queueDrops{tx: map[string]int64{}}
	for _, c := range r.res.Candidates {
		for _, t := range c.Trials {
			if t.Drops == nil {
				continue
			}
			if !slices.Contains(q.dirs, t.Direction) && r.res.controls(t.Direction) {
				q.dirs = append(q.dirs, t.Direction)
			}
			if n := t.Drops.TxDrop + t.Drops.Qdisc; n > 0 && t.Drops.Iface != "" {
				q.tx[t.Drops.Iface] += n
			}
			q.backlog += t.Drops.Backlog
			if t.Drops.Backlogs > 0 {
				q.limit = t.Drops.Backlogs
			}
		}
	}
	return q
}

// queues tries, before the search, the host queue that dropped packets
// during the baseline's trials: the transmit queue of the interface
// toward the peer (link.IFACE.txqueuelen, on both ends in the lab) and
// the receive backlog (net.core.netdev_max_backlog: host-wide, so it
// can be set only where tune's settings reach the host's own namespace,
// never in a lab). The raise is screened once in every direction with
// the current buffers. When it gains at least minGain without losing
// more than the noise elsewhere, it is where the search starts, and
// every candidate of the search carries it (r.extra): drops outside TCP
// would read as the path's loss to every buffer step. Verification
// then proves the choice, raise included, and nothing of it stays
// unless the choice is kept. A queue tune cannot set is named with the
// way to set it.
func (r *runner) queues(ctx context.Context, base *Candidate) (*Candidate, error) {
	q := r.queueDrops()
	if len(q.dirs) == 0 {
		return base, nil
	}
	var adds []Setting
	var what []string
	for _, iface := range slices.Sorted(maps.Keys(q.tx)) {
		key := linkset.Key(iface, "txqueuelen")
		cur, err := r.readInt(key)
		if err != nil || drops.NextTxQueueLen(cur) == cur {
			r.res.Steps = append(r.res.Steps, fmt.Sprintf("transmit queue: %s dropped %d packets, but its txqueuelen %s: nothing to raise", iface, q.tx[iface], readable(cur, err)))
			continue
		}
		next := drops.NextTxQueueLen(cur)
		adds = append(adds, Setting{Key: key, Value: strconv.FormatInt(next, 10),
			Reason: fmt.Sprintf("the transmit queue of %s dropped %d packets in the trials (tx_dropped and its qdisc's drops): a burst longer than %d packets is lost before the wire, outside TCP's control; raised from %d", iface, q.tx[iface], cur, cur)})
		what = append(what, fmt.Sprintf("txqueuelen of %s %d → %d", iface, cur, next))
	}
	if q.backlog > 0 {
		cur := q.limit
		if v, err := r.readInt(keyBacklog); err == nil {
			cur = v
		}
		if next := drops.NextBacklog(cur); cur > 0 && next > cur {
			adds = append(adds, Setting{Key: keyBacklog, Value: strconv.FormatInt(next, 10),
				Reason: fmt.Sprintf("the receive backlog dropped %d packets in the trials (softnet_stat): packets that arrive faster than a core takes them are lost before TCP sees them; raised from %d", q.backlog, cur)})
			what = append(what, fmt.Sprintf("%s %d → %d", keyBacklog, cur, next))
		}
	}
	if len(adds) == 0 {
		return base, nil
	}
	ok, skipped, err := r.env.Split((&Candidate{Settings: adds}).KVs())
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		r.res.Steps = append(r.res.Steps, fmt.Sprintf("host queues: tune cannot set %v here (in a lab the receive backlog is the host's, shared by every namespace): raise it by hand (sysctl -w), then run tune again", skipped))
	}
	adds = slices.DeleteFunc(adds, func(s Setting) bool {
		return !slices.ContainsFunc(ok, func(kv apply.KV) bool { return kv.Key == s.Key })
	})
	if len(adds) == 0 {
		return base, nil
	}
	c := &Candidate{ID: "queues", Origin: OriginSearch, Name: "current buffers, host queues raised",
		Source: "the host's queue drops", Settings: adds}
	c.resolve(r.current)
	r.res.Candidates = append(r.res.Candidates, c)
	r.pr.Stage("host queues dropped packets during the baseline: screening %s", strings.Join(what, ", "))
	dirs := slices.Clone(r.res.Controllable)
	for _, d := range q.dirs {
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	if err := r.trials(ctx, c, 1, dirs, TrialSpec{}); err != nil {
		return nil, err
	}
	if !r.improves(c, base) || r.worseSomewhere(c, base) {
		c.Status = "no gain: raising the host queues did not help"
		r.res.Steps = append(r.res.Steps, fmt.Sprintf("host queues: %s gained less than %.0f%% in one trial per direction: not raised (the drops were not what held the transfer)", strings.Join(what, ", "), 100*minGain))
		return base, nil
	}
	r.extra = adds
	r.res.Steps = append(r.res.Steps, fmt.Sprintf("host queues: %s gained in one trial per direction: the search starts from there, and every candidate carries it", strings.Join(what, ", ")))
	return c, nil
}

// readInt reads one integer setting where tune's settings apply.
func (r *runner) readInt(key string) (int64, error) {
	v, err := r.env.Read([]string{key})
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(v[key], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q", key, v[key])
	}
	return n, nil
}

func readable(v int64, err error) string {
	if err != nil {
		return "could not be read (" + err.Error() + ")"
	}
	return fmt.Sprintf("is already %d", v)
}
