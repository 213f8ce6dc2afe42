package tune

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/drops"
	"github.com/tcptune/tcptune/internal/linkset"
	"github.com/tcptune/tcptune/internal/plan"
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
			if !slices.Contains(q.dirs, t.Direction) && slices.Contains(r.res.Controllable, t.Direction) {
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

// hostQueues is the raise of the host queues that dropped packets
// during the baseline's trials: the transmit queue of the interface
// toward the peer (link.IFACE.txqueuelen, on both ends in the lab) and
// the receive backlog (net.core.netdev_max_backlog: host-wide, so it
// can be set only where tune's settings reach the host's own namespace,
// never in a lab). The raise is a dimension of the search's grid (every
// point with and without it): the model learns what the drops hold
// from the trials without it. knob says where it acts; cost is what it
// lets the host hold (the packets it adds × the MTU). A queue tune
// cannot set is named with the way to set it.
type hostQueues struct {
	settings []Setting
	knob     plan.Knob
	cost     float64
}

func (r *runner) hostQueues() (hostQueues, error) {
	var h hostQueues
	q := r.queueDrops()
	if len(q.dirs) == 0 {
		return h, nil
	}
	var what []string
	var added []int64
	mtu := int64(r.mss + 52)
	for _, iface := range slices.Sorted(maps.Keys(q.tx)) {
		key := linkset.Key(iface, "txqueuelen")
		cur, err := r.readInt(key)
		if err != nil || drops.NextTxQueueLen(cur) == cur {
			r.res.Steps = append(r.res.Steps, fmt.Sprintf("transmit queue: %s dropped %d packets, but its txqueuelen %s: nothing to raise", iface, q.tx[iface], readable(cur, err)))
			continue
		}
		next := drops.NextTxQueueLen(cur)
		h.settings = append(h.settings, Setting{Key: key, Value: strconv.FormatInt(next, 10),
			Reason: fmt.Sprintf("the transmit queue of %s dropped %d packets in the trials (tx_dropped and its qdisc's drops): a burst longer than %d packets is lost before the wire, outside TCP's control; raised from %d", iface, q.tx[iface], cur, cur)})
		what, added = append(what, fmt.Sprintf("txqueuelen of %s %d → %d", iface, cur, next)), append(added, next-cur)
	}
	if q.backlog > 0 {
		cur := q.limit
		if v, err := r.readInt(keyBacklog); err == nil {
			cur = v
		}
		if next := drops.NextBacklog(cur); cur > 0 && next > cur {
			h.settings = append(h.settings, Setting{Key: keyBacklog, Value: strconv.FormatInt(next, 10),
				Reason: fmt.Sprintf("the receive backlog dropped %d packets in the trials (softnet_stat): packets that arrive faster than a core takes them are lost before TCP sees them; raised from %d", q.backlog, cur)})
			what, added = append(what, fmt.Sprintf("%s %d → %d", keyBacklog, cur, next)), append(added, next-cur)
		}
	}
	if len(h.settings) == 0 {
		return h, nil
	}
	ok, skipped, err := r.env.Split((&Candidate{Settings: h.settings}).KVs())
	if err != nil {
		return h, err
	}
	if len(skipped) > 0 {
		r.res.Steps = append(r.res.Steps, fmt.Sprintf("host queues: tune cannot set %v here (in a lab the receive backlog is the host's, shared by every namespace): raise it by hand (sysctl -w), then run tune again", skipped))
	}
	var tx, backlog bool
	var names []string
	for i, st := range h.settings {
		if !slices.ContainsFunc(ok, func(kv apply.KV) bool { return kv.Key == st.Key }) {
			continue
		}
		h.cost += float64(added[i] * mtu)
		tx, backlog = tx || st.Key != keyBacklog, backlog || st.Key == keyBacklog
		names = append(names, what[i])
	}
	h.settings = slices.DeleteFunc(h.settings, func(s Setting) bool {
		return !slices.ContainsFunc(ok, func(kv apply.KV) bool { return kv.Key == s.Key })
	})
	switch {
	case tx && backlog:
		h.knob = plan.Queues
	case tx:
		h.knob = plan.TxQueue
	case backlog:
		h.knob = plan.Backlog
	}
	if h.knob != "" {
		r.res.Steps = append(r.res.Steps, fmt.Sprintf("host queues: %s is a dimension of the search (the baseline's trials dropped packets there)", strings.Join(names, ", ")))
	}
	return h, nil
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
