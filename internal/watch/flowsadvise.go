package watch

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/advise"
	"github.com/tcptune/tcptune/internal/units"
)

// ReadSummary reads what watch --flows --json wrote (the last summary
// line), or one summary object.
func ReadSummary(r io.Reader) (Summary, error) {
	var s Summary
	found := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var l FlowLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return s, fmt.Errorf("not watch --flows --json output: %w", err)
		}
		if l.Summary != nil {
			s, found = *l.Summary, true
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	if !found {
		return s, errors.New("no summary in it: watch --flows --json writes one when it ends")
	}
	return s, nil
}

// FlowAdvice is what a summary asks of this host and of its peers.
type FlowAdvice struct {
	// Rate and RTT size this host's buffers: the target rate and the
	// longest minimum RTT among the groups a buffer of this host held
	// (RTT 0: none did, and nothing of this host is to change).
	Rate float64       `json:"rate_bits_per_second"`
	RTT  time.Duration `json:"rtt_ns"`
	// Groups says each group's verdict and where it acts; Peers the
	// settings for the other ends.
	Groups []string `json:"groups"`
	Peers  []string `json:"peers,omitempty"`
	// Kernel is the watching host's release, whose defaults the advice
	// for its buffers stays above.
	Kernel string `json:"kernel,omitempty"`
}

// Advise is the summary's advice for a target rate per flow (0 = the
// rate the summary was made for).
func (s Summary) Advise(target float64) FlowAdvice {
	if target <= 0 {
		target = s.TargetBPS
	}
	a := FlowAdvice{Rate: target, Kernel: s.Kernel}
	for _, g := range s.Groups {
		line := fmt.Sprintf("%s %s: %d flows, %d judged", g.Group, g.Role, g.Flows, g.Judged)
		if g.Judged == 0 {
			a.Groups = append(a.Groups, line+": none long enough to judge")
			continue
		}
		line += fmt.Sprintf(", median %s, min RTT %.1f ms: %s %.0f%%", units.FormatRateShort(g.MedianBPS), g.MinRTTms, g.Verdict, 100*g.Share)
		if len(g.RuledOut) > 0 {
			line += " (not " + joinLimits(g.RuledOut) + ")"
		}
		adv := groupAdvice(g, target, s.Kernel)
		switch {
		case adv == nil:
			line += ": no buffer acts on it"
		case adv.Key == "":
			line += "; the sender's view decides: " + adv.Verify
		case adv.Host == "this host":
			line += ": this host's " + adv.Key
			a.RTT = max(a.RTT, time.Duration(g.MinRTTms*float64(time.Millisecond)))
		default:
			line += ": " + adv.Host + "'s " + adv.Key
			a.Peers = append(a.Peers, fmt.Sprintf("on %s: %s (verify: %s)", adv.Host, adv.Command, adv.Verify))
		}
		a.Groups = append(a.Groups, line)
	}
	return a
}

// ReadAdvice reads a saved watch --flows --json run's advice for a
// target rate (0 = the run's).
func ReadAdvice(name string, rate float64) (FlowAdvice, error) {
	fh, err := os.Open(name)
	if err != nil {
		return FlowAdvice{}, err
	}
	defer fh.Close()
	s, err := ReadSummary(fh)
	if err != nil {
		return FlowAdvice{}, fmt.Errorf("%s: %w", name, err)
	}
	return s.Advise(rate), nil
}

// WriteText prints the groups' verdicts and the peers' settings, each
// line behind prefix (a comment in a settings file).
func (f FlowAdvice) WriteText(w io.Writer, prefix string) {
	fmt.Fprintf(w, "%sfrom the flows watched (for %s per flow):\n", prefix, units.FormatRateShort(f.Rate))
	for _, line := range slices.Concat(f.Groups, f.Peers) {
		fmt.Fprintf(w, "%s  %s\n", prefix, line)
	}
	if f.RTT == 0 {
		fmt.Fprintf(w, "%sno group was held by a buffer of this host: nothing of it to change\n", prefix)
		return
	}
	fmt.Fprintf(w, "%sthis host's buffers, for the longest of those groups' RTTs (%s):\n", prefix, units.FormatDuration(f.RTT))
}

// WriteAdvice writes advise's settings for in in format. With flows (a
// watch --flows --json file; in.RTT then 0) they are sized for what the
// flows saw, behind the groups' verdicts as comments (none in JSON), or
// are only those verdicts where no buffer of this host held a group.
func WriteAdvice(w io.Writer, in advise.Input, flows, format string) error {
	var from *FlowAdvice
	if flows != "" {
		if in.RTT > 0 {
			return errors.New("--rtt: with --flows the RTT comes from the flows")
		}
		f, err := ReadAdvice(flows, in.Rate)
		if err != nil {
			return fmt.Errorf("--flows: %w", err)
		}
		if from = &f; f.RTT == 0 {
			f.WriteText(w, "")
			return nil
		}
		in.Rate, in.RTT, in.RateAsWritten = f.Rate, f.RTT, ""
		in.Kernel = cmp.Or(f.Kernel, in.Kernel)
	}
	if in.Rate <= 0 || in.RTT <= 0 {
		return errors.New("--rate and --rtt: required, e.g. --rate 1gbit --rtt 50ms")
	}
	a, err := advise.Advise(in)
	if err != nil {
		return err
	}
	out, err := advise.Render(a, format)
	if err != nil {
		return err
	}
	if from != nil && format != "json" {
		from.WriteText(w, "# ")
	}
	_, err = io.WriteString(w, out)
	return err
}
