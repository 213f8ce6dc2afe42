package apply

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/knobs"
	"github.com/tcptune/tcptune/internal/linkpersist"
	"github.com/tcptune/tcptune/internal/linkset"
	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/sysctl"
)

// Options control where apply works.
type Options struct {
	NetNS string // "" = this namespace
	// Force allows keys outside the knob catalogue (kernel.*, vm.*, …);
	// without it they are refused.
	Force bool
	// Again lets rollback restore a backup already rolled back.
	Again bool
	// IgnoreDrift lets rollback restore values and files that changed
	// since apply wrote them.
	IgnoreDrift bool
	Persist     bool
	DryRun      bool
	BackupDir   string // default /var/lib/tcptune/backups
	SysctlD     string // default /etc/sysctl.d
	// ConfigRoot is where --persist finds the network configuration
	// that keeps link settings (ROOT/etc/network/interfaces, …; see
	// package linkpersist) and the interfaces' MACs (ROOT/sys): "/"
	// by default, FS's fixture root when FS is one.
	ConfigRoot string
	// FS is the /proc/sys that is read and written; the zero value is
	// the live one (inside NetNS). Unit tests pass a fixture tree.
	FS sysctl.FS
	// BeforeWrite, if set, runs before write i (of change c) and may
	// fail it: the hook through which tests inject faults, delays and
	// sabotage. The shipped binary never sets it.
	BeforeWrite func(i int, c Change) error
	// BeforePersist, if set, runs before each file --persist writes and
	// may fail it (tests only, as BeforeWrite).
	BeforePersist func(path string) error
	// TrialPID marks the backup as a temporary trial of that process
	// (see Backup.TrialPID).
	TrialPID int
}

// keys is where apply reads and writes: sysctls under /proc/sys
// (package sysctl) and interface settings, link.IF.mtu and
// link.IF.txqueuelen (package linkset), both under one root.
type keys struct {
	sys   sysctl.FS
	links linkset.Store
}

// fs is the tree apply works on: the live one, or o.FS's fixture.
func (o Options) fs() keys {
	if o.FS.Root == "" {
		return keys{sys: sysctl.Host()}
	}
	return keys{sys: o.FS, links: linkset.Store{Root: o.FS.Root}}
}

func (k keys) Get(key string) (string, error) {
	if linkset.Is(key) {
		return k.links.Get(key)
	}
	return k.sys.Get(key)
}

func (k keys) Set(key, value string) error {
	if linkset.Is(key) {
		return k.links.Set(key, value)
	}
	return k.sys.Set(key, value)
}

// writable checks a key's form and reports whether it can be written
// here (not root, or a host-only sysctl inside a namespace).
func (k keys) writable(key string) (bool, error) {
	if linkset.Is(key) {
		if _, _, err := linkset.Parse(key); err != nil {
			return false, err
		}
		return k.links.Writable(key), nil
	}
	p, err := k.sys.Path(key)
	if err != nil {
		return false, err
	}
	return writable(p), nil
}

// catalogued finds a key's knob: a link key by its pattern (link.*.mtu).
func catalogued(key string) (knobs.Knob, bool) {
	if linkset.Is(key) {
		return knobs.Lookup("linux", linkset.Pattern(key))
	}
	return knobs.Lookup("linux", key)
}

// sysctls are the kvs a sysctl.d file can hold (not link settings).
func sysctls(kvs []KV) []KV {
	var out []KV
	for _, kv := range kvs {
		if !linkset.Is(kv.Key) {
			out = append(out, kv)
		}
	}
	return out
}

// DefaultBackupDir is where apply keeps its backups unless
// TCPTUNE_STATE_DIR says otherwise.
const DefaultBackupDir = "/var/lib/tcptune/backups"

func (o *Options) defaults() {
	if o.BackupDir == "" {
		o.BackupDir = DefaultBackupDir
	}
	if o.SysctlD == "" {
		o.SysctlD = "/etc/sysctl.d"
	}
	if o.ConfigRoot == "" {
		o.ConfigRoot = "/"
		if o.FS.Root != "" {
			o.ConfigRoot = o.FS.Root
		}
	}
}

// PersistFile is the file --persist writes.
func (o Options) PersistFile() string {
	o.defaults()
	return filepath.Join(o.SysctlD, "90-tcptune.conf")
}

// Change is one planned write.
type Change struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

// Outcome is what one apply or rollback did, as apply --json and
// rollback --json print it (the Ansible modules read it).
type Outcome struct {
	Changed     bool     `json:"changed"`
	DryRun      bool     `json:"dry_run,omitempty"`
	Changes     []Change `json:"changes"`
	Backup      string   `json:"backup,omitempty"`       // the backup's ID (undo: rollback ID)
	PersistFile string   `json:"persist_file,omitempty"` // written with --persist
	// PersistFiles are the network configuration's files --persist
	// wrote for link settings.
	PersistFiles []string `json:"persist_files,omitempty"`
	// Overrides are files read after the sysctl.d file that set one of
	// its keys: at boot their value wins (see Overrides).
	Overrides []Override `json:"overridden_by,omitempty"`
}

// Applied is the outcome of Apply: b is nil when nothing was written
// (a dry run, or nothing to change).
func Applied(b *Backup, changes []Change, dryRun bool) Outcome {
	o := Outcome{Changed: b != nil, DryRun: dryRun, Changes: changes}
	if o.Changes == nil {
		o.Changes = []Change{}
	}
	if b != nil {
		o.Backup, o.PersistFile, o.PersistFiles = b.ID, b.PersistFile, b.files()
	}
	return o
}

// RolledBack is the outcome of Rollback: each change from the value
// apply wrote back to the one it replaced.
func RolledBack(b *Backup) Outcome {
	o := Outcome{Changed: true, Backup: b.ID, PersistFile: b.PersistFile, PersistFiles: b.files(), Changes: []Change{}}
	for _, c := range b.Changes {
		o.Changes = append(o.Changes, Change{Key: c.Key, Old: c.New, New: c.Old})
	}
	return o
}

// Backup is what apply replaced.
type Backup struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	NetNS   string    `json:"netns,omitempty"`
	Changes []Change  `json:"changes"`
	// NetNSID identifies the network namespace the values were written
	// in (the device and inode of /proc/self/ns/net there, as
	// "net:[INODE]@DEV"): a backup made with "ip netns exec A" is A's,
	// whatever NetNS says. Empty in backups made before it was recorded.
	NetNSID     string  `json:"netns_id,omitempty"`
	PersistFile string  `json:"persist_file,omitempty"`
	PersistOld  *string `json:"persist_old,omitempty"` // nil: the file did not exist
	// PersistKeys are the keys --persist set in PersistFile, each with
	// what the file held before: rollback puts back these alone.
	PersistKeys []PersistKey `json:"persist_keys,omitempty"`
	// Files are the network configuration's files --persist wrote for
	// link settings, each with what it held before.
	Files  []FileBackup `json:"files,omitempty"`
	State  string       `json:"state"`            // applied, restored (after a failure), rolled-back
	Forced bool         `json:"forced,omitempty"` // applied with --force: keys outside the catalogue
	// TrialPID is the process whose temporary trial this is (tcptune
	// tune), which rolls it back and discards it when the trial ends;
	// 0 for a change meant to stay. See Interrupted.
	TrialPID int `json:"trial_pid,omitempty"`
	// TrialStart tells that process apart from a later one with the
	// same PID: its start time (clock ticks after boot, /proc/PID/stat),
	// in the boot Boot names.
	TrialStart uint64 `json:"trial_start,omitempty"`
	// Boot is the boot the backup was made in (kernel.random.boot_id).
	Boot string `json:"boot,omitempty"`
}

// FileBackup is one file --persist replaced.
type FileBackup struct {
	Path string      `json:"path"`
	Old  *string     `json:"old"` // nil: the file did not exist
	Mode os.FileMode `json:"mode"`
	// NewSum is the SHA-256 of what apply wrote: rollback restores the
	// file only while it still holds that (else a later apply or an edit
	// changed it: drift).
	NewSum string `json:"new_sha256,omitempty"`
}

// restoreMode is the mode f is written back with: its recorded mode,
// never wider than 0644 (a backup file's word does not widen it).
func (f FileBackup) restoreMode() os.FileMode {
	if m := f.Mode & 0o644; m != 0 {
		return m
	}
	return 0o644
}

func (b *Backup) files() []string {
	var out []string
	for _, f := range b.Files {
		out = append(out, f.Path)
	}
	return out
}

// Plan validates every value in the target namespace and returns the
// changes (keys whose value differs).
func Plan(kvs []KV, o Options) ([]Change, error) {
	var out []Change
	var errs []string
	if err := CheckDuplicates(kvs); err != nil {
		return nil, err
	}
	err := nsx.Do(o.NetNS, func() error {
		for _, kv := range kvs {
			c, err := check(o.fs(), kv, o.Force, true)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if c.Old != c.New {
				out = append(out, c)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return out, nil
}

func check(fs keys, kv KV, force, bounds bool) (Change, error) {
	where := kv.Key
	if kv.Line > 0 {
		where = fmt.Sprintf("line %d: %s", kv.Line, kv.Key)
	}
	canWrite, err := fs.writable(kv.Key)
	if err != nil {
		return Change{}, fmt.Errorf("%s: %v", where, err)
	}
	if _, ok := catalogued(kv.Key); !ok && !force {
		return Change{}, fmt.Errorf("%s: not a network buffer knob tcptune knows (tcptune show lists them); --force writes it anyway", where)
	}
	old, err := fs.Get(kv.Key)
	if err != nil {
		return Change{}, fmt.Errorf("%s: no such sysctl here", where)
	}
	if k, ok := catalogued(kv.Key); ok && k.Numeric() {
		var vals []int64
		for _, f := range strings.Fields(kv.Value) {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return Change{}, fmt.Errorf("%s: %q is not a number (%s)", where, f, k.Unit)
			}
			vals = append(vals, v)
		}
		check := k.Check
		if !bounds {
			check = k.CheckCount
		}
		if err := check(vals); err != nil {
			return Change{}, fmt.Errorf("%s: %v", where, err)
		}
	} else if len(strings.Fields(old)) != len(strings.Fields(kv.Value)) {
		return Change{}, fmt.Errorf("%s: takes %d value(s), got %d", where, len(strings.Fields(old)), len(strings.Fields(kv.Value)))
	}
	if !canWrite {
		return Change{}, fmt.Errorf("%s: not writable in this namespace (a host-only key, or not root)", where)
	}
	return Change{Key: kv.Key, Old: old, New: strings.Join(strings.Fields(kv.Value), " ")}, nil
}

func newID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Apply validates, backs up, writes, and on any failure restores.
func Apply(kvs []KV, o Options) (*Backup, []Change, error) {
	o.defaults()
	if err := ValidateNetNS(o.NetNS); err != nil {
		return nil, nil, err
	}
	changes, err := Plan(kvs, o)
	if err != nil || o.DryRun {
		return nil, changes, err
	}
	// A sysctl.d file holds sysctls only; link settings go into the
	// network configuration's own files (package linkpersist).
	persistSysctl := o.Persist && len(sysctls(kvs)) > 0
	var files []linkpersist.File
	if o.Persist {
		var err error
		if files, err = linkFiles(kvs, o); err != nil {
			return nil, changes, err
		}
	}
	var conf *string // the sysctl.d file's new contents
	var persistOld *string
	var persistKeys []PersistKey
	if persistSysctl {
		old, err := os.ReadFile(o.PersistFile())
		if err == nil {
			s := string(old)
			persistOld = &s
		} else if !os.IsNotExist(err) {
			return nil, changes, fmt.Errorf("read %s: %w", o.PersistFile(), err)
		}
		merged, keys := mergeConf(string(old), kvs)
		if persistOld == nil || merged != *persistOld {
			conf, persistKeys = &merged, keys
		}
	}
	if len(changes) == 0 && conf == nil && len(files) == 0 {
		return nil, nil, nil // nothing to do: no backup either (apply is idempotent)
	}
	id, err := nsx.Identity(o.NetNS)
	if err != nil {
		return nil, changes, err
	}
	b := &Backup{ID: newID(), Time: time.Now().UTC(), NetNS: o.NetNS, NetNSID: id, Changes: changes, State: "applied", Forced: o.Force, TrialPID: o.TrialPID,
		Boot: bootID(o.fsRoot())}
	if b.NetNS == "" && id != nsx.Init() {
		b.NetNS = nsx.NameOf(id) // "ip netns exec A tcptune apply": A's
	}
	if o.TrialPID > 0 {
		b.TrialStart = startTime(o.fsRoot(), o.TrialPID)
	}
	if conf != nil {
		b.PersistFile, b.PersistOld, b.PersistKeys = o.PersistFile(), persistOld, persistKeys
	}
	for _, f := range files {
		fb := FileBackup{Path: f.Path, Mode: f.Mode, NewSum: sum(f.Data)}
		if old, err := os.ReadFile(f.Path); err == nil {
			s := string(old)
			fb.Old = &s
		} else if !os.IsNotExist(err) {
			return nil, changes, fmt.Errorf("read %s: %w", f.Path, err)
		}
		b.Files = append(b.Files, fb)
	}
	// The backup is on disk before the first write: a crash mid-way can
	// always be rolled back.
	if err := save(o.BackupDir, b); err != nil {
		return nil, changes, fmt.Errorf("backup: %w", err)
	}
	var rerr error
	werr := nsx.Do(o.NetNS, func() error {
		for i, c := range changes {
			var err error
			if o.BeforeWrite != nil {
				err = o.BeforeWrite(i, c)
			}
			if err == nil {
				err = o.fs().Set(c.Key, c.New)
			}
			if err != nil {
				// The failed write may have taken effect in part (a
				// vector, a link set halfway): it is restored too.
				rerr = restore(o.fs(), changes[:i+1])
				return err
			}
		}
		return nil
	})
	if werr == nil {
		werr = writePersisted(b, conf, files, o.BeforePersist)
		if werr != nil {
			nsx.Do(o.NetNS, func() error { rerr = restore(o.fs(), changes); return nil })
			rerr = errors.Join(rerr, restoreFiles(b))
		}
	}
	if werr != nil {
		if rerr != nil {
			b.State = "partly-restored"
			save(o.BackupDir, b)
			return b, changes, fmt.Errorf("%v; %w (backup %s holds the old values)", werr, rerr, b.ID)
		}
		b.State = "restored"
		save(o.BackupDir, b)
		return b, changes, fmt.Errorf("%v: every value written was restored", werr)
	}
	return b, changes, nil
}

// linkFiles plans the network configuration's files that keep kvs'
// link settings (every one of the request, so the files say what the
// host should be), leaving out those that already hold it.
func linkFiles(kvs []KV, o Options) ([]linkpersist.File, error) {
	var settings []linkpersist.Setting
	at := map[string]int{}
	for _, kv := range kvs {
		if !linkset.Is(kv.Key) {
			continue
		}
		iface, attr, err := linkset.Parse(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := strconv.Atoi(strings.TrimSpace(kv.Value))
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a number", kv.Key, kv.Value)
		}
		i, ok := at[iface]
		if !ok {
			i, at[iface] = len(settings), len(settings)
			settings = append(settings, linkpersist.Setting{Iface: iface})
		}
		if attr == "mtu" {
			settings[i].MTU = v
		} else {
			settings[i].TxQueueLen = v
		}
	}
	if len(settings) == 0 {
		return nil, nil
	}
	if o.NetNS != "" {
		return nil, errors.New("--persist: link settings inside --netns are not kept (a namespace's interfaces do not outlive it)")
	}
	all, err := linkpersist.Plan(o.ConfigRoot, settings, o.fs().links.Device)
	if err != nil {
		return nil, err
	}
	var out []linkpersist.File
	for _, f := range all {
		if old, err := os.ReadFile(f.Path); err != nil || string(old) != f.Data {
			out = append(out, f)
		}
	}
	return out, nil
}

// writePersisted writes b's sysctl.d file and then the network
// configuration's files, each atomically; on a failure it has written
// some of them, which restoreFiles undoes.
func writePersisted(b *Backup, conf *string, files []linkpersist.File, before func(string) error) error {
	if before == nil {
		before = func(string) error { return nil }
	}
	if conf != nil {
		if err := before(b.PersistFile); err != nil {
			return err
		}
		if err := writeFileDurably(b.PersistFile, []byte(*conf), 0o644); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := before(f.Path); err != nil {
			return err
		}
		if err := writeFileDurably(f.Path, []byte(f.Data), f.Mode); err != nil {
			return fmt.Errorf("persist %s for %s (%s): %w", f.Path, f.Iface, f.Manager, err)
		}
	}
	return nil
}

// restoreFiles puts back what b's persisted files held before
// (removing those that did not exist): an apply that failed half-way,
// under the lock, so nothing else wrote them since.
func restoreFiles(b *Backup) error {
	var ws []fileWrite
	for i := len(b.Files) - 1; i >= 0; i-- {
		f := b.Files[i]
		ws = append(ws, fileWrite{path: f.Path, data: f.Old, mode: f.restoreMode()})
	}
	if b.PersistFile != "" {
		ws = append(ws, fileWrite{path: b.PersistFile, data: b.PersistOld, mode: 0o644})
	}
	return writeFiles(ws)
}

// RestoreError names the keys whose old value could not be written back.
type RestoreError struct {
	Keys []string
	Err  error
}

func (e *RestoreError) Error() string {
	return fmt.Sprintf("NOT restored: %s (%v)", strings.Join(e.Keys, ", "), e.Err)
}

func (e *RestoreError) Unwrap() error { return e.Err }

// restore writes the old values back, newest first; a *RestoreError
// names every key that failed.
func restore(fs keys, changes []Change) error {
	var errs []error
	var keys []string
	for i := len(changes) - 1; i >= 0; i-- {
		if err := fs.Set(changes[i].Key, changes[i].Old); err != nil {
			errs = append(errs, err)
			keys = append(keys, changes[i].Key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return &RestoreError{Keys: keys, Err: errors.Join(errs...)}
}

func save(dir string, b *Backup) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	// Durable before the first write it guards: a power loss must not
	// leave a persisted change whose backup is empty.
	return writeFileDurably(filepath.Join(dir, b.ID+".json"), data, 0o600)
}

// List returns the backups, oldest first (by the time they were made,
// to the nanosecond, then by ID). The directory must belong to the user
// running tcptune and be writable by no one else, or List refuses; an
// entry in it that is not a trusted, valid backup named by its own ID
// is left out (ListAll names each and why; see trust.go).
func List(o Options) ([]Backup, error) {
	l, err := ListAll(o)
	return l.Backups, err
}

// Listing is the backup directory's contents: the backups, and the
// entries that were left out.
type Listing struct {
	Backups []Backup
	Skipped []Skip
}

// ListAll returns the backups as List does, with the entries it left out.
func ListAll(o Options) (Listing, error) {
	o.defaults()
	out, skipped, err := readTrusted(o.BackupDir)
	if err != nil {
		return Listing{}, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.Before(out[j].Time)
		}
		return out[i].ID < out[j].ID
	})
	return Listing{Backups: out, Skipped: skipped}, nil
}

// Interrupted lists the trials whose process ended without undoing
// them (killed, or the machine stopped): backups still "applied" whose
// process no longer runs. A process is told by its PID, the boot it ran
// in and its start time, so a later process that reuses the PID does
// not hide the trial. Their values may still be live; "tcptune rollback
// ID" undoes each. It fails closed: an entry of the backup directory it
// cannot read could be such a trial, so any is an error naming it.
func Interrupted(o Options) ([]Backup, error) {
	l, err := ListAll(o)
	if err != nil {
		return nil, err
	}
	if len(l.Skipped) > 0 {
		var why []string
		for _, s := range l.Skipped {
			why = append(why, s.String())
		}
		return nil, fmt.Errorf("the backup directory holds entries that are not valid backups, so an interrupted trial cannot be ruled out: %s; move them out of %s", strings.Join(why, "; "), o.BackupDir)
	}
	root := o.fsRoot()
	boot := bootID(root)
	var out []Backup
	for _, b := range l.Backups {
		if b.TrialPID <= 0 || b.State != "applied" {
			continue
		}
		_, err := os.Stat(filepath.Join(root, "proc", strconv.Itoa(b.TrialPID)))
		switch {
		case os.IsNotExist(err):
		case b.Boot != "" && boot != "" && b.Boot != boot:
		case b.TrialStart != 0 && startTime(root, b.TrialPID) != b.TrialStart:
		default:
			continue // its process still runs: a trial in progress
		}
		out = append(out, b)
	}
	return out, nil
}

// Describe is one line that says what backup b changed, and how to
// undo it.
func (b Backup) Describe() string {
	var parts []string
	for _, c := range b.Changes {
		parts = append(parts, fmt.Sprintf("%s %s → %s", c.Key, c.Old, c.New))
	}
	where := ""
	if b.NetNS != "" {
		where = " in namespace " + b.NetNS
	}
	return fmt.Sprintf("backup %s (%s%s): %s; undo: tcptune rollback %s", b.ID, b.Time.Local().Format("2006-01-02 15:04:05"), where, strings.Join(parts, ", "), b.ID)
}

// ListedBackup is a backup as rollback --list --json prints it: with
// whether it belongs to the namespace the listing ran for (Here), which
// a script needs to pick what a plain "tcptune rollback" would.
type ListedBackup struct {
	Backup
	Here bool `json:"here"`
}

// Listed marks which of bs belong to o's namespace (o.NetNS, or the
// current one).
func Listed(bs []Backup, o Options) []ListedBackup {
	here, _ := nsx.Identity(o.NetNS)
	boot := bootID(o.fsRoot())
	out := []ListedBackup{}
	for _, b := range bs {
		out = append(out, ListedBackup{Backup: b, Here: belongs(b, here, boot, o.NetNS)})
	}
	return out
}

// Where names the namespace a backup belongs to, for a person: its
// name, the host's, or its identity.
func (b Backup) Where() string {
	switch {
	case b.NetNS != "":
		return b.NetNS
	case b.NetNSID == "" || b.NetNSID == nsx.Init():
		return "(host)"
	}
	return b.NetNSID
}

// sameNamespace reports whether b was made in the namespace whose
// identity is here. A namespace's inode can be reused after a reboot,
// so an identity from another boot counts only for the host's, which
// keeps its identity.
func sameNamespace(b Backup, here, boot string) bool {
	if b.NetNSID == "" || here == "" {
		return true // made before identities were recorded, or not Linux
	}
	return b.NetNSID == here && (b.Boot == "" || b.Boot == boot || here == nsx.Init())
}

// belongs reports whether b is a backup of the namespace rollback runs
// in (identity here, name netns): by identity, or, for a backup made
// before identities were recorded, by the name it gives.
func belongs(b Backup, here, boot, netns string) bool {
	if b.NetNSID == "" {
		return b.NetNS == netns
	}
	return sameNamespace(b, here, boot)
}

// Rollback restores backup id (or the newest not yet rolled back for the
// namespace) and its persisted files. It trusts nothing the backup says
// about itself: keys outside the catalogue need o.Force (the command
// line's --force, never the file's), every old value is checked as apply
// checks a request, and the only files it may write are the ones
// --persist writes (the sysctl.d file, and the network configuration's
// files that linkpersist.Owned names). It runs only in the namespace the
// backup was made in (o.NetNS enters one). A backup already rolled back
// needs o.Again; a key whose live value, a sysctl.d key or a file that
// no longer holds what apply wrote (someone changed it since) needs
// o.IgnoreDrift: rollback names each and writes nothing. It writes as
// --persist does: temporary file, fsync, rename, fsync of the directory.
func Rollback(id string, o Options) (*Backup, error) {
	o.defaults()
	if id != "" {
		if err := ValidateID(id); err != nil {
			return nil, err
		}
	}
	if err := ValidateNetNS(o.NetNS); err != nil {
		return nil, err
	}
	l, err := ListAll(o)
	if err != nil {
		return nil, err
	}
	here, err := nsx.Identity(o.NetNS)
	if err != nil {
		return nil, err
	}
	boot := bootID(o.fsRoot())
	var b *Backup
	for i := len(l.Backups) - 1; i >= 0; i-- {
		x := l.Backups[i]
		if (id != "" && x.ID == id) || (id == "" && x.State == "applied" && belongs(x, here, boot, o.NetNS)) {
			b = &x
			break
		}
	}
	if b == nil {
		for _, s := range l.Skipped {
			if id != "" && s.ID == id {
				return nil, fmt.Errorf("backup %s: %s", id, s.Why)
			}
		}
		if id != "" {
			return nil, fmt.Errorf("no backup %q (tcptune rollback --list)", id)
		}
		return nil, fmt.Errorf("no backup to roll back for namespace %s (tcptune rollback --list)", Backup{NetNS: o.NetNS, NetNSID: here}.Where())
	}
	ns := b.NetNS // a backup without an identity: the namespace it names
	if b.NetNSID != "" {
		if !sameNamespace(*b, here, boot) {
			this := Backup{NetNS: o.NetNS, NetNSID: here}
			if this.NetNS == "" {
				this.NetNS = nsx.NameOf(here)
			}
			do := "it is gone with that namespace"
			if b.NetNS != "" && nsx.NameOf(b.NetNSID) == b.NetNS {
				do = "run: tcptune rollback " + b.ID + " --netns " + b.NetNS
			}
			return b, fmt.Errorf("rollback %s: the backup belongs to network namespace %s (%s), not to %s (%s); %s", b.ID, b.Where(), b.NetNSID, this.Where(), here, do)
		}
		ns = o.NetNS // where here was read: the backup's namespace
	}
	if b.State == "rolled-back" && !o.Again {
		return b, fmt.Errorf("rollback %s: already rolled back; --again restores its old values once more", b.ID)
	}
	if b.PersistFile != "" && filepath.Clean(b.PersistFile) != o.PersistFile() {
		return b, fmt.Errorf("rollback %s: the backup names %q; apply only writes %s", b.ID, b.PersistFile, o.PersistFile())
	}
	for _, f := range b.Files {
		if !linkpersist.Owned(o.ConfigRoot, f.Path) {
			return b, fmt.Errorf("rollback %s: the backup names %q, not a network configuration file apply --persist writes", b.ID, f.Path)
		}
	}
	// Every check before the first write: values, then files.
	ignore := o.IgnoreDrift || b.State != "applied"
	plan, drift, err := planFiles(b, ignore)
	if err != nil {
		return b, fmt.Errorf("rollback %s: %w", b.ID, err)
	}
	err = nsx.Do(ns, func() error {
		for _, c := range b.Changes {
			// An old value is the kernel's own, read before apply wrote:
			// it may lie outside the catalogue's bounds, so only its form
			// is checked, and the kernel takes it back or refuses it.
			if _, err := check(o.fs(), KV{Key: c.Key, Value: c.Old}, o.Force, false); err != nil {
				return fmt.Errorf("backup %s: %v", b.ID, err)
			}
			// live = old: never written (an apply killed half-way), nothing
			// to undo there; live = new: what apply wrote; else someone's.
			if live, err := o.fs().Get(c.Key); err == nil && norm(live) != norm(c.New) && norm(live) != norm(c.Old) && b.State == "applied" {
				drift = append(drift, fmt.Sprintf("%s: old %s → live %s (apply wrote %s) → restore %s", c.Key, c.Old, norm(live), c.New, c.Old))
			}
		}
		if len(drift) > 0 && !ignore {
			return fmt.Errorf("changed since backup %s was applied, left alone (--ignore-drift restores anyway): %s", b.ID, strings.Join(drift, "; "))
		}
		return restore(o.fs(), b.Changes)
	})
	if err != nil {
		return b, fmt.Errorf("rollback %s: %w", b.ID, err)
	}
	if err := writeFiles(plan); err != nil {
		return b, fmt.Errorf("rollback %s: %w", b.ID, err)
	}
	b.State = "rolled-back"
	return b, save(o.BackupDir, b)
}

// fileWrite is one file rollback writes back: data, or a removal (nil).
type fileWrite struct {
	path string
	data *string
	mode os.FileMode
}

// planFiles is what rolling back b's persisted files writes, and the
// drift it found: a network configuration file that no longer holds
// what apply wrote (a later apply or an edit: restoring it would undo
// that too, or resurrect an older backup's contents), a sysctl.d key no
// longer at the value apply wrote. With ignore, drifted files and keys
// are restored all the same.
func planFiles(b *Backup, ignore bool) ([]fileWrite, []string, error) {
	var out []fileWrite
	var drift []string
	for i := len(b.Files) - 1; i >= 0; i-- {
		f := b.Files[i]
		if f.NewSum != "" {
			cur, err := os.ReadFile(f.Path)
			switch {
			case os.IsNotExist(err):
				drift = append(drift, f.Path+": removed since apply wrote it")
			case err != nil:
				return nil, nil, err
			case sum(string(cur)) != f.NewSum:
				drift = append(drift, f.Path+": changed since apply wrote it")
			}
		}
		out = append(out, fileWrite{path: f.Path, data: f.Old, mode: f.restoreMode()})
	}
	switch {
	case b.PersistFile == "":
	case b.PersistKeys == nil: // a backup of the whole file
		out = append(out, fileWrite{path: b.PersistFile, data: b.PersistOld, mode: 0o644})
	default:
		cur, err := os.ReadFile(b.PersistFile)
		if err != nil && !os.IsNotExist(err) {
			return nil, nil, err
		}
		text, d := unmergeConf(string(cur), b.PersistKeys, ignore)
		for _, x := range d {
			drift = append(drift, b.PersistFile+": "+x)
		}
		w := fileWrite{path: b.PersistFile, data: &text, mode: 0o644}
		if !settingsLeft(text) {
			w.data = nil // the file is apply's own, and nothing is left in it
		}
		out = append(out, w)
	}
	return out, drift, nil
}

// writeFiles carries out planFiles' writes.
func writeFiles(ws []fileWrite) error {
	var errs []error
	for _, w := range ws {
		var err error
		if w.data == nil {
			err = removeDurably(w.path)
		} else {
			err = writeFileDurably(w.path, []byte(*w.data), w.mode)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func norm(v string) string { return strings.Join(strings.Fields(v), " ") }

// Split validates kvs in the target namespace without writing anything and
// separates the keys that can be applied there from those that cannot,
// each with the reason (a host-only key inside a namespace, a key this
// kernel lacks, a value out of range, not root).
func Split(kvs []KV, o Options) (ok []KV, skipped []string, err error) {
	err = nsx.Do(o.NetNS, func() error {
		for _, kv := range kvs {
			if _, err := check(o.fs(), kv, o.Force, true); err != nil {
				skipped = append(skipped, err.Error())
				continue
			}
			ok = append(ok, kv)
		}
		return nil
	})
	return ok, skipped, err
}

// Read returns the current values of keys in the target namespace; keys
// that do not exist there are left out.
func Read(keys []string, o Options) (map[string]string, error) {
	out := map[string]string{}
	err := nsx.Do(o.NetNS, func() error {
		for _, k := range keys {
			if v, err := o.fs().Get(k); err == nil {
				out[k] = strings.Join(strings.Fields(v), " ")
			}
		}
		return nil
	})
	return out, err
}

// Discard deletes a backup that has been rolled back (tune's trial
// changes, which leave nothing to undo).
func Discard(id string, o Options) error {
	o.defaults()
	if id == "" || strings.ContainsAny(id, `/\`) {
		return fmt.Errorf("bad backup id %q", id)
	}
	err := os.Remove(filepath.Join(o.BackupDir, id+".json"))
	if os.IsNotExist(err) {
		return nil
	}
	return err
}
