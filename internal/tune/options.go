package tune

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/tcptune/tcptune/internal/apply"
)

// ccName is a congestion control's name as the kernel takes it.
var ccName = regexp.MustCompile(`^[a-z0-9_]{1,15}$`)

// Validate checks the options before anything runs: a lab or a peer,
// what a lab run can keep, what --persist needs, a congestion control's
// name, the trials. Its messages name the flag, as the command line
// spells it.
func (o Options) Validate(onLab, onPeer bool) error {
	switch {
	case onLab == onPeer:
		return errors.New("tune: give --lab or --peer HOST")
	case o.LabFlag != "" && !onLab:
		return fmt.Errorf("--%s: only with --lab", o.LabFlag)
	case o.Apply && onLab:
		return errors.New("--apply: only with --peer (the lab link and its settings are removed at the end)")
	case o.Persist && !o.Apply:
		return errors.New("--persist: only with --apply")
	case o.Congestion != "" && !ccName.MatchString(o.Congestion):
		return fmt.Errorf("-C/--congestion: accepts a congestion control's name, e.g. cubic or bbr (got %q)", o.Congestion)
	case o.Trials != 0 && o.Trials < 2:
		return fmt.Errorf("--trials: accepts 2 or more (got %d): the verification compares trials", o.Trials)
	case o.Budget < 0:
		return errors.New("--budget: accepts a duration of 0 (automatic) or more")
	case o.Time < 0 || o.Omit < 0:
		return errors.New("-t/--time and -O/--omit: accept durations of 0 or more")
	}
	return nil
}

// Interrupted refuses to tune over the trial settings an earlier tune
// left live when it was killed (the baseline would be them): it names
// each and the rollback that undoes it. o are the apply options whose
// backups tune uses. A backup directory it cannot fully read stops it
// too, naming the entry.
func Interrupted(o apply.Options) error {
	bs, err := apply.Interrupted(o)
	if err != nil {
		// Fail closed: what cannot be read could be an interrupted trial.
		return fmt.Errorf("tune: cannot rule out an interrupted earlier run: %w", err)
	}
	if len(bs) == 0 {
		return nil
	}
	var lines []string
	for _, b := range bs {
		lines = append(lines, b.Describe())
	}
	return fmt.Errorf("tune: an earlier tune (pid %d) was interrupted and left a trial's settings: %s; undo it first (tcptune rollback ID), then run tune again", bs[0].TrialPID, strings.Join(lines, "; "))
}
