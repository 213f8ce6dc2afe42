package doctor

import (
	"fmt"
	"strings"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/sysctl"
)

// checkInterrupted: trial settings that a tcptune tune left live when
// it was killed (its backup still "applied", its process gone).
func checkInterrupted(h Host, _ inputs) []Result {
	if h.Backups == "" {
		return nil
	}
	bs, err := apply.Interrupted(apply.Options{BackupDir: h.Backups, FS: sysctl.FS{Root: h.Root}})
	if err != nil {
		return []Result{na("interrupted-tune", "backups unreadable: "+err.Error())}
	}
	if len(bs) == 0 {
		return []Result{{Check: "interrupted-tune", Verdict: OK, Evidence: "no tcptune tune run was interrupted with a trial's settings live (" + h.Backups + ")"}}
	}
	var lines, ids []string
	for _, b := range bs {
		lines = append(lines, b.Describe())
		ids = append(ids, b.ID)
	}
	return []Result{{Check: "interrupted-tune", Verdict: Fail,
		Evidence: fmt.Sprintf("%d trial(s) of an interrupted tcptune tune (pid %d) left settings live: %s", len(bs), bs[0].TrialPID, strings.Join(lines, "; ")),
		Why:      "roll back what the interrupted run left",
		Fix:      "tcptune rollback " + strings.Join(ids, " && tcptune rollback ")}}
}
