package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/relay"
	"github.com/tcptune/tcptune/internal/tun"
)

// CheckPrivileges says in one line what is missing to build a link.
func CheckPrivileges() error {
	if os.Geteuid() != 0 {
		var hdr = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if unix.Capget(&hdr, &data[0]) != nil || data[0].Effective&(1<<unix.CAP_NET_ADMIN) == 0 || data[0].Effective&(1<<unix.CAP_SYS_ADMIN) == 0 {
			return errors.New("tcptune lab needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create namespaces and TUN devices")
		}
	}
	f, err := os.OpenFile("/dev/net/tun", os.O_RDWR, 0)
	if err != nil {
		if os.IsNotExist(err) {
			return errors.New("/dev/net/tun is missing: load the tun module (modprobe tun) or give the container the device")
		}
		return fmt.Errorf("cannot open /dev/net/tun: %v", err)
	}
	f.Close()
	return nil
}

// lock serialises lab changes across processes (flock on Dir()/.lock).
func lock() (func(), error) {
	if err := os.MkdirAll(Dir(), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(Dir(), ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
}

// alive reports whether pid is a running relay of this link.
func alive(pid int, name string) bool {
	if pid <= 0 || unix.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	return len(args) >= 4 && args[len(args)-3] == "lab" && args[len(args)-2] == "relay" && args[len(args)-1] == name
}

func nsExists(name string) bool {
	_, err := os.Stat(filepath.Join("/run/netns", name))
	return err == nil
}

// cleanup removes what a dead relay left: namespaces (and with them the
// devices in them) and the state directory.
func cleanup(s *State) {
	for _, ns := range []string{s.NSA, s.NSB} {
		if s.Hub != "" && ns == s.NSA && hubInUse(s) {
			continue
		}
		if nsExists(ns) {
			killIn(ns)
			netns.DeleteNamed(ns)
		}
	}
	for _, t := range []string{s.TunA, s.TunB} {
		if l, err := netlink.LinkByName(t); err == nil {
			netlink.LinkDel(l)
		}
	}
	os.RemoveAll(stateDir(s.Name))
}

// hubInUse reports whether another link's state names s's hub.
func hubInUse(s *State) bool {
	entries, _ := os.ReadDir(Dir())
	for _, e := range entries {
		if o, err := ReadState(e.Name()); err == nil && o.Name != s.Name && o.Hub == s.Hub {
			return true
		}
	}
	return false
}

// killIn ends the processes left in a namespace (as "ip netns pids"
// finds them): a namespace outlives its name while anything runs in it.
func killIn(ns string) {
	var st unix.Stat_t
	if unix.Stat(filepath.Join("/run/netns", ns), &st) != nil {
		return
	}
	want := fmt.Sprintf("net:[%d]", st.Ino)
	find := func() []int {
		var pids []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			if l, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid)); err == nil && l == want {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	pids := find()
	for _, p := range pids {
		unix.Kill(p, unix.SIGTERM)
	}
	for i := 0; i < 40 && len(pids) > 0; i++ {
		time.Sleep(50 * time.Millisecond)
		pids = find()
	}
	for _, p := range pids {
		unix.Kill(p, unix.SIGKILL)
	}
}

// Up builds a link and starts its relay as a detached process.
func Up(c Config) (*State, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := CheckPrivileges(); err != nil {
		return nil, err
	}
	unlock, err := lock()
	if err != nil {
		return nil, fmt.Errorf("lab state %s: %w", Dir(), err)
	}
	defer unlock()
	if old, err := ReadState(c.Name); err == nil {
		if alive(old.PID, c.Name) {
			return nil, fmt.Errorf("lab link %q is already up (relay pid %d)", c.Name, old.PID)
		}
		cleanup(old)
	} else if _, err := os.Stat(stateDir(c.Name)); err == nil {
		os.RemoveAll(stateDir(c.Name))
	}
	index, err := freeIndex()
	if err != nil {
		return nil, err
	}
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano()) | 1
	}
	st := newState(c, index)
	for _, ns := range []string{st.NSA, st.NSB} {
		if ns == st.NSA && st.Hub != "" && (hubInUse(&st) || !nsExists(ns)) {
			continue // a hub is shared with the other links of its star
		}
		if nsExists(ns) { // left by something else: refuse rather than guess
			return nil, fmt.Errorf("namespace %s exists but no lab link owns it; remove it with: ip netns del %s", ns, ns)
		}
	}
	dir := stateDir(c.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(dir, "state.json"), st); err != nil {
		return nil, err
	}
	return &st, startRelay(&st)
}

func freeIndex() (int, error) {
	used := map[int]bool{}
	entries, _ := os.ReadDir(Dir())
	for _, e := range entries {
		if s, err := ReadState(e.Name()); err == nil {
			used[s.Index] = true
		}
	}
	for i := 1; i < 255; i++ {
		if !used[i] {
			return i, nil
		}
	}
	return 0, errors.New("all 254 lab link slots (10.201.1-254.0/24) are in use")
}

// startRelay launches "tcptune lab relay NAME" in its own session and
// waits for it to report that the link is up.
func startRelay(st *State) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir := stateDir(st.Name)
	logf, err := os.OpenFile(filepath.Join(dir, "relay.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "lab", "relay", st.Name)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Env = append(os.Environ(), "TCPTUNE_RELAY_READY_FD=3")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		return fmt.Errorf("start relay: %w", err)
	}
	pw.Close()
	done := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(io.LimitReader(pr, 4096)); done <- b }()
	var msg []byte
	select {
	case msg = <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		msg = []byte("error: the relay did not report ready within 20 s")
	}
	pr.Close()
	cmd.Process.Release()
	if s := strings.TrimSpace(string(msg)); s != "ok" {
		if s == "" {
			s = "error: the relay exited during set-up; see " + filepath.Join(dir, "relay.log")
		}
		cleanup(st)
		return errors.New(strings.TrimPrefix(s, "error: "))
	}
	return nil
}

// Down stops a link's relay (which removes the link) or, if the relay is
// dead, removes what it left.
func Down(name string) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	unlock, err := lock()
	if err != nil {
		return err
	}
	defer unlock()
	st, err := ReadState(name)
	if err != nil {
		return err
	}
	if alive(st.PID, name) {
		unix.Kill(st.PID, unix.SIGTERM)
		deadline := time.Now().Add(10 * time.Second)
		for alive(st.PID, name) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(st.PID, name) {
			unix.Kill(st.PID, unix.SIGKILL)
			time.Sleep(100 * time.Millisecond)
		}
	}
	cleanup(st)
	return nil
}

// DownAll removes every link, or with orphaned only those whose owner
// is gone (left by a run that was killed); it returns their names.
func DownAll(orphaned bool) ([]string, error) {
	return downWhere(func(l Link) bool { return l.Orphaned || !orphaned })
}

func downWhere(pick func(Link) bool) ([]string, error) {
	links, err := List()
	if err != nil {
		return nil, err
	}
	var names []string
	var errs []error
	for _, l := range links {
		if !pick(l) {
			continue
		}
		if err := Down(l.Name); err != nil {
			errs = append(errs, err)
			continue
		}
		names = append(names, l.Name)
	}
	return names, errors.Join(errs...)
}

// List returns every link with its relay's liveness and counters.
func List() ([]Link, error) {
	entries, err := os.ReadDir(Dir())
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []Link
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		st, err := ReadState(e.Name())
		if err != nil {
			continue
		}
		l := Link{State: *st, Alive: alive(st.PID, st.Name)}
		if st.Owner > 0 {
			_, err := os.Stat(fmt.Sprintf("/proc/%d", st.Owner))
			l.Orphaned = os.IsNotExist(err)
		}
		if s, err := ReadStats(st.Name); err == nil {
			l.Stats = &s
		}
		out = append(out, l)
	}
	return out, nil
}

// Exec replaces this process with argv running in one end of a link,
// with TCPTUNE_PEER set to the other end's address.
func Exec(name, side string, argv []string) error {
	if side != "a" && side != "b" {
		return fmt.Errorf("side %q: accepts a or b", side)
	}
	if len(argv) == 0 {
		return errors.New("no command given (tcptune lab exec NAME a|b -- CMD...)")
	}
	st, err := ReadState(name)
	if err != nil {
		return err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	runtime.LockOSThread() // the namespace is per thread; exec keeps this one
	ns, err := netns.GetFromName(st.Namespace(side))
	if err != nil {
		return fmt.Errorf("namespace %s: %w (is the link up? tcptune lab ls)", st.Namespace(side), err)
	}
	if err := netns.Set(ns); err != nil {
		return fmt.Errorf("enter namespace %s: %w", st.Namespace(side), err)
	}
	if err := privateSysfs(); err != nil {
		return fmt.Errorf("namespace %s: %w", st.Namespace(side), err)
	}
	env := append(os.Environ(), "TCPTUNE_PEER="+st.Peer(side), "TCPTUNE_LAB="+name, "TCPTUNE_SIDE="+side)
	return syscall.Exec(path, argv, env)
}

// privateSysfs gives this thread, and the program it execs, its own
// mount namespace with a sysfs of the network namespace it is in, as
// "ip netns exec" does: /sys/class/net then lists the namespace's own
// interfaces (doctor reads them there), not the host's. The host's
// mounts are untouched: the new namespace is a slave of the old one.
func privateSysfs() error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare the mount namespace: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_SLAVE|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("make / a slave mount: %w", err)
	}
	if err := unix.Unmount("/sys", unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("unmount /sys: %w", err)
	}
	if err := unix.Mount("sysfs", "/sys", "sysfs", 0, ""); err != nil {
		return fmt.Errorf("mount sysfs: %w", err)
	}
	return nil
}

// Command returns an exec.Cmd that runs argv in one end of a link
// through "tcptune lab exec" (self is the tcptune binary).
func Command(self, name, side string, argv ...string) *exec.Cmd {
	return exec.Command(self, append([]string{"lab", "exec", name, side, "--"}, argv...)...)
}

// Run brings a link up, runs argv in end a, and takes the link down,
// also when interrupted. Unless o.NoServe, "tcptune serve" runs in end b
// for the command's life, and the command starts once it listens. Every
// "{peer}" in argv becomes end b's address (TCPTUNE_PEER holds it too,
// for shells). The ends' addresses are printed on o.Log first. It
// returns argv's exit status.
func Run(ctx context.Context, c Config, argv []string, o RunOptions) (int, error) {
	if len(argv) == 0 {
		return 1, errors.New("no command given (tcptune lab run [flags] -- CMD...)")
	}
	c.Owner = os.Getpid()
	st, err := Up(c)
	if err != nil {
		return 1, err
	}
	defer Down(c.Name)
	self, err := os.Executable()
	if err != nil {
		return 1, err
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintf(log, "lab %s: a %s (%s) ⇄ b %s (%s)\n", c.Name, st.AddrA, st.NSA, st.AddrB, st.NSB)
	if !o.NoServe {
		stop, err := StartServer(ctx, self, c.Name, ServePort)
		if err != nil {
			return 1, err
		}
		defer stop()
		fmt.Fprintf(log, "lab %s: tcptune serve in b on %s port %d\n", c.Name, st.AddrB, ServePort)
	}
	cmd := Command(self, c.Name, "a", SubstPeer(argv, st.Peer("a"))...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return 1, err
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	done := ctx.Done()
	for {
		select {
		case <-done:
			// The caller's context ends on a signal (the CLI owns them):
			// CMD gets the same one, SIGTERM for any other cause.
			cmd.Process.Signal(causeSignal(ctx))
			done = nil // once: a closed channel would spin the loop until CMD exits
		case err := <-waited:
			if s, serr := ReadStats(c.Name); serr == nil && !Faithful(s.Behind(), c.RTT) {
				WriteBehind(log, "lab "+c.Name, s.Behind(), c.RTT)
			}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode(), nil
			}
			if err != nil {
				return 1, err
			}
			return 0, nil
		}
	}
}

// causeSignal is the signal that ended ctx, when its cause carries one
// (as the CLI's does), else SIGTERM.
func causeSignal(ctx context.Context) os.Signal {
	var sc interface{ Signal() os.Signal }
	if errors.As(context.Cause(ctx), &sc) {
		return sc.Signal()
	}
	return syscall.SIGTERM
}

// StartServer starts "tcptune serve -p port [flags]" (self is the
// tcptune binary) in end b of link name, its output discarded, and waits
// until it listens: read from the server's own /proc/PID/net/tcp{,6}, so
// no probing connection shows up in its log as an error. stop ends it.
func StartServer(ctx context.Context, self, name string, port int, flags ...string) (stop func(), err error) {
	srv := Command(self, name, "b", append([]string{self, "serve", "-p", strconv.Itoa(port)}, flags...)...)
	srv.Stdout, srv.Stderr = io.Discard, io.Discard
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("tcptune serve in end b: %w", err)
	}
	stop = func() {
		srv.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			srv.Process.Kill()
			<-done
		}
	}
	if err := waitListening(ctx, srv.Process.Pid, port, 10*time.Second); err != nil {
		stop()
		return nil, fmt.Errorf("tcptune serve in end b: %w", err)
	}
	return stop, nil
}

// waitListening waits until process pid (in its namespace) listens on
// port, reading its /proc/PID/net/tcp{,6}.
func waitListening(ctx context.Context, pid, port int, timeout time.Duration) error {
	want := fmt.Sprintf(":%04X", port)
	deadline := time.Now().Add(timeout)
	for {
		for _, f := range []string{"tcp", "tcp6"} {
			if listening(filepath.Join("/proc", strconv.Itoa(pid), "net", f), want) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on port %d after %v", port, timeout)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func listening(path, port string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		// sl local_address rem_address st ...; st 0A = LISTEN
		if f := strings.Fields(line); len(f) > 3 && strings.HasSuffix(f[1], port) && f[3] == "0A" {
			return true
		}
	}
	return false
}

// RunRelay is the relay process ("tcptune lab relay NAME"): it builds
// the namespaces and devices, forwards packets through the link model,
// publishes counters, and removes everything when signalled.
func RunRelay(ctx context.Context, name string) error {
	ready := readyPipe()
	report := func(msg string) {
		if ready != nil {
			ready.WriteString(msg + "\n")
			ready.Close()
			ready = nil
		}
	}
	st, err := ReadState(name)
	if err != nil {
		report("error: " + err.Error())
		return err
	}
	// ctx ends on INT, TERM and HUP (the CLI's): the relay then stops
	// and cleans up.
	defer cleanup(st)
	a, b, err := build(st)
	if err != nil {
		report("error: " + err.Error())
		return err
	}
	st.PID, st.Started = os.Getpid(), time.Now()
	if err := writeJSON(filepath.Join(stateDir(name), "state.json"), st); err != nil {
		report("error: " + err.Error())
		return err
	}
	m, mBA := st.Model(), st.ModelBA()
	m.Path.Router, mBA.Path.Router = st.Router(), st.Router()
	r := relay.New(a.File, b.File, m, mBA, st.Seed)
	go publish(ctx, r, filepath.Join(stateDir(name), "stats.json"))
	report("ok")
	err = r.Run(ctx)
	ab, ba := r.Stats()
	writeJSON(filepath.Join(stateDir(name), "stats.json"), Stats{AB: ab, BA: ba, Updated: time.Now()})
	fmt.Printf("relay %s stopped: a→b %+v\nb→a %+v\n", name, ab, ba)
	return err
}

func readyPipe() *os.File {
	if os.Getenv("TCPTUNE_RELAY_READY_FD") == "" {
		return nil
	}
	return os.NewFile(3, "ready")
}

func publish(ctx context.Context, r *relay.Relay, path string) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ab, ba := r.Stats()
			writeJSON(path, Stats{AB: ab, BA: ba, Updated: time.Now()})
		}
	}
}

// build creates the TUN pair (in this namespace), the two namespaces,
// moves one TUN into each and configures addresses, MTU and txqueuelen.
func build(st *State) (*tun.Device, *tun.Device, error) {
	a, err := tun.Open(st.TunA)
	if err != nil {
		return nil, nil, err
	}
	b, err := tun.Open(st.TunB)
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	for _, x := range []struct {
		dev  *tun.Device
		ns   string
		addr string
	}{{a, st.NSA, st.AddrA}, {b, st.NSB, st.AddrB}} {
		if err := intoNamespace(x.dev.Name, x.ns, x.addr, st.MTU, st.TxQLen()); err != nil {
			a.Close()
			b.Close()
			return nil, nil, err
		}
	}
	if st.Hub != "" {
		if err := joinHub(st); err != nil {
			a.Close()
			b.Close()
			return nil, nil, err
		}
	}
	return a, b, nil
}

// joinHub lets the hub forward between its links, and routes end b's
// traffic to the other lab addresses through the hub.
func joinHub(st *State) error {
	if err := nsx.Do(st.NSA, func() error {
		return os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1\n"), 0o644)
	}); err != nil {
		return fmt.Errorf("hub %s: ip_forward: %w", st.NSA, err)
	}
	ns, err := netns.GetFromName(st.NSB)
	if err != nil {
		return err
	}
	defer ns.Close()
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return err
	}
	defer h.Close()
	_, all, _ := net.ParseCIDR("10.201.0.0/16")
	if err := h.RouteAdd(&netlink.Route{Dst: all, Gw: net.ParseIP(st.AddrA)}); err != nil {
		return fmt.Errorf("route 10.201.0.0/16 via the hub in %s: %w", st.NSB, err)
	}
	return nil
}

// netnsDir is where named network namespaces are bound, as iproute2
// keeps them.
const netnsDir = "/run/netns"

// sharedNetnsDir makes /run/netns a mount point with shared propagation,
// as "ip netns add" does before its first namespace. Without it, a later
// "ip netns add" turns the plain directory into a mount point by binding
// it onto itself: the namespaces bound there before stay on the covered
// directory, lab down unmounts only their visible copies, and their
// files cannot be removed ("Peer netns reference is invalid"). That was
// the first run's leak on a fresh machine, where /run/netns did not
// exist yet. The bind is made only while the directory holds no
// namespace: binding over live ones would cause the same leak.
func sharedNetnsDir() error {
	if err := os.MkdirAll(netnsDir, 0o755); err != nil {
		return err
	}
	err := unix.Mount("", netnsDir, "none", unix.MS_SHARED|unix.MS_REC, "")
	if err == nil {
		return nil
	}
	if err != unix.EINVAL {
		return fmt.Errorf("make %s a shared mount point: %w", netnsDir, err)
	}
	// Not a mount point yet.
	if ents, _ := os.ReadDir(netnsDir); len(ents) > 0 {
		return nil // namespaces live there: leave it as it is
	}
	if err := unix.Mount(netnsDir, netnsDir, "none", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("make %s a mount point: %w", netnsDir, err)
	}
	if err := unix.Mount("", netnsDir, "none", unix.MS_SHARED|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("make %s a shared mount point: %w", netnsDir, err)
	}
	return nil
}

// newNamespace creates a named namespace without leaving this thread in it.
func newNamespace(name string) (netns.NsHandle, error) {
	if err := sharedNetnsDir(); err != nil {
		return 0, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		return 0, err
	}
	defer orig.Close()
	ns, err := netns.NewNamed(name)
	if err != nil {
		netns.Set(orig)
		return 0, fmt.Errorf("create namespace %s: %w", name, err)
	}
	if err := netns.Set(orig); err != nil {
		return 0, err
	}
	return ns, nil
}

func intoNamespace(dev, nsName, addr string, mtu, txqlen int) error {
	var ns netns.NsHandle
	var err error
	if strings.HasPrefix(nsName, "tcptune-hub-") && nsExists(nsName) {
		ns, err = netns.GetFromName(nsName) // a star's shared hub
	} else {
		ns, err = newNamespace(nsName)
	}
	if err != nil {
		return err
	}
	defer ns.Close()
	link, err := netlink.LinkByName(dev)
	if err != nil {
		return fmt.Errorf("find %s: %w", dev, err)
	}
	if err := netlink.LinkSetNsFd(link, int(ns)); err != nil {
		return fmt.Errorf("move %s into %s: %w", dev, nsName, err)
	}
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return err
	}
	defer h.Close()
	lo, err := h.LinkByName("lo")
	if err == nil {
		h.LinkSetUp(lo)
	}
	l, err := h.LinkByName(dev)
	if err != nil {
		return fmt.Errorf("find %s in %s: %w", dev, nsName, err)
	}
	if err := h.LinkSetMTU(l, mtu); err != nil {
		return fmt.Errorf("set MTU %d on %s: %w", mtu, dev, err)
	}
	// The transmit ring (Config.TxQLen): TUN drops what a full one
	// cannot take, outside the link model (link-emulation.md §5.3).
	if err := h.LinkSetTxQLen(l, txqlen); err != nil {
		return fmt.Errorf("set txqueuelen on %s: %w", dev, err)
	}
	ip := net.ParseIP(addr)
	if err := h.AddrAdd(l, &netlink.Addr{IPNet: &net.IPNet{IP: ip, Mask: net.CIDRMask(24, 32)}}); err != nil {
		return fmt.Errorf("address %s on %s: %w", addr, dev, err)
	}
	if err := h.LinkSetUp(l); err != nil {
		return fmt.Errorf("bring %s up: %w", dev, err)
	}
	return nil
}
