package apply

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tcptune/tcptune/internal/trust"
)

// WriteList writes backups as rollback --list's table.
func WriteList(w io.Writer, backups []Backup) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tNETNS\tSTATE\tCHANGES")
	for _, b := range backups {
		var keys []string
		for _, c := range b.Changes {
			keys = append(keys, c.Key)
		}
		ns := b.Where()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", b.ID, b.Time.Format(time.RFC3339), ns, b.State, strings.Join(keys, ","))
	}
	return tw.Flush()
}

// WriteChanges writes each change as "KEY: OLD -> NEW".
func (o Outcome) WriteChanges(w io.Writer) {
	for _, c := range o.Changes {
		fmt.Fprintf(w, "%s: %s -> %s\n", c.Key, c.Old, c.New)
	}
}

// WriteApplied writes what apply did: its changes, then nothing to
// change, a dry run, or the backup that undoes it (and the persisted
// file).
func (o Outcome) WriteApplied(w io.Writer) {
	o.WriteChanges(w)
	switch {
	case !o.Changed && len(o.Changes) == 0:
		fmt.Fprintln(w, "nothing to change")
	case o.DryRun:
		fmt.Fprintln(w, "dry run: nothing written")
	default:
		fmt.Fprintf(w, "applied %d value(s); backup %s (undo: tcptune rollback %s)\n", len(o.Changes), o.Backup, o.Backup)
		if o.PersistFile != "" {
			fmt.Fprintf(w, "persisted in %s\n", o.PersistFile)
		}
		for _, f := range o.PersistFiles {
			fmt.Fprintf(w, "persisted in %s\n", f)
		}
	}
	for _, x := range o.Overrides {
		fmt.Fprintf(w, "warning: %s sets %s = %s and is read after tcptune's sysctl.d file: at boot its value wins\n", x.File, x.Key, x.Value)
	}
}

// WriteRolledBack writes what rollback restored.
func (o Outcome) WriteRolledBack(w io.Writer) {
	o.WriteChanges(w)
	fmt.Fprintf(w, "rolled back %s\n", o.Backup)
}

// FromEnv is o with the backup directory, the sysctl.d directory and
// the root of the network configuration that the environment names,
// where it does (TCPTUNE_STATE_DIR, TCPTUNE_SYSCTL_D,
// TCPTUNE_CONFIG_ROOT): how tests, the lab and the Ansible modules keep
// the host's own state apart. Each is honoured only under the checks the
// backup directory gets (absolute; it, or the nearest part of it that
// exists, a directory of the user running tcptune that no one else may
// write, not a link): root's writes are not sent where another user
// could have prepared the ground.
func (o Options) FromEnv(getenv func(string) string) (Options, error) {
	for _, v := range []struct {
		name string
		to   *string
		sub  string
	}{{"TCPTUNE_STATE_DIR", &o.BackupDir, "/backups"}, {"TCPTUNE_SYSCTL_D", &o.SysctlD, ""}, {"TCPTUNE_CONFIG_ROOT", &o.ConfigRoot, ""}} {
		d := getenv(v.name)
		if d == "" {
			continue
		}
		if err := trust.Path(d); err != nil {
			return o, fmt.Errorf("%s=%s: %w", v.name, d, err)
		}
		*v.to = d + v.sub
	}
	return o, nil
}

// Run is one apply as the command line makes it: under the host's apply
// lock (a dry run writes nothing and takes none), its outcome with the
// files that override the persisted keys at boot. wrote reports whether
// anything was written: an error after that leaves changes to print.
func Run(kvs []KV, o Options) (out Outcome, wrote bool, err error) {
	if !o.DryRun {
		unlock, err := Lock(o)
		if err != nil {
			return Outcome{}, false, err
		}
		defer unlock()
	}
	b, changes, err := Apply(kvs, o)
	out = Applied(b, changes, o.DryRun)
	if o.Persist {
		out.Overrides = Overrides(kvs, o)
	}
	return out, b != nil, err
}

// Undo is one rollback as the command line makes it: under the host's
// apply lock.
func Undo(id string, o Options) (Outcome, error) {
	unlock, err := Lock(o)
	if err != nil {
		return Outcome{}, err
	}
	defer unlock()
	b, err := Rollback(id, o)
	if err != nil {
		return Outcome{}, err
	}
	return RolledBack(b), nil
}
