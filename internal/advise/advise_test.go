package advise

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func base(osName string) Input {
	return Input{Rate: 1e9, RTT: 50 * time.Millisecond, Streams: 1, Connections: 100, Memory: 16 << 30, TCPMemMax: 2 << 30, Role: "host", OS: osName}
}

// TestGolden renders every OS and format for 1 Gbit/s × 50 ms and
// compares with testdata/*.golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
	for osName, formats := range Formats {
		for _, f := range formats {
			a, err := Advise(base(osName))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Render(a, f)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", osName+"_"+f+".golden")
			if *update {
				os.WriteFile(file, []byte(got), 0o644)
				continue
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%s: %v (run go test -update)", file, err)
			}
			if got != string(want) {
				t.Errorf("%s differs:\n%s", file, got)
			}
		}
	}
}

func value(a Advice, key string) []int64 {
	for _, s := range a.Settings {
		if s.Key == key {
			return s.Values
		}
	}
	return nil
}

func TestLinuxValues(t *testing.T) {
	in := base("linux")
	in.Kernel = "6.1.0" // the need shows above a 6 MiB default
	a, _ := Advise(in)
	// BDP 6.25 MB: tune's first point on an unmeasured path (plan.Needs:
	// BDP ÷ 0.65 and ÷ 0.80 with 3% headroom, on its 1.15× rungs).
	r, w := plan.Needs(a.BDP, 1e9, 50*time.Millisecond, 0.65, 0.80, plan.DefaultPolicy(3, 5*time.Second, 0, 50*time.Millisecond))
	if a.BDP != 6250000 || value(a, "net.ipv4.tcp_rmem")[2] != r || value(a, "net.ipv4.tcp_wmem")[2] != w {
		t.Fatalf("%+v, want rmem %d wmem %d", a.Settings, r, w)
	}
	if f := float64(r) / 6.25e6; f < 1.58 || f > 1.82 {
		t.Errorf("rmem max %.2f × BDP", f)
	}
	if value(a, "net.core.rmem_max") != nil {
		t.Fatal("host role must not touch rmem_max")
	}
	in = base("linux")
	in.Role = "storage"
	a, _ = Advise(in)
	if value(a, "net.core.rmem_max") == nil {
		t.Fatal("storage role sets rmem_max")
	}
	// Never below the kernel's own default: 6 MiB before Linux 6.16,
	// 32 MiB since (and where the kernel is unknown).
	in.Streams = 4
	for kernel, want := range map[string]int64{"6.1.0-18-amd64": 6291456, "6.18.4": 33554432, "": 33554432} {
		in.Kernel = kernel
		a, _ = Advise(in)
		if value(a, "net.ipv4.tcp_rmem")[2] != want {
			t.Errorf("4 streams on %q: %v, want max %d", kernel, value(a, "net.ipv4.tcp_rmem"), want)
		}
	}
	// Huge paths are capped at INT_MAX.
	in = base("linux")
	in.Rate, in.RTT = 400e9, 200*time.Millisecond
	a, _ = Advise(in)
	if v := value(a, "net.ipv4.tcp_rmem")[2]; v != IntMax {
		t.Fatalf("cap: %d", v)
	}
}

func TestRolesBudgetMyths(t *testing.T) {
	in := base("linux")
	in.Role, in.Kernel = "firewall", "5.14.0-427.el9.x86_64"
	a, _ := Advise(in)
	if value(a, "net.ipv4.tcp_rmem")[2] != 6291456 || !strings.Contains(strings.Join(a.Warnings, " "), "wastes memory") {
		t.Fatalf("firewall: %+v", a)
	}
	in = base("linux")
	in.Connections = 5000
	a, _ = Advise(in)
	if a.Budget.Fits || !strings.Contains(a.Budget.Note, "does not fit") {
		t.Fatalf("budget: %+v", a.Budget)
	}
	w, _ := Advise(base("windows"))
	if !strings.Contains(strings.Join(w.Myths, " "), "TcpWindowSize") {
		t.Fatal("windows myth")
	}
	out, _ := Render(w, "script")
	if strings.Contains(out, "TcpWindowSize ") || !strings.Contains(out, "Set-NetTCPSetting") {
		t.Fatalf("windows script:\n%s", out)
	}
	f, _ := Advise(base("freebsd"))
	if value(f, "kern.ipc.maxsockbuf")[0]*2048/2304 < value(f, "net.inet.tcp.recvbuf_max")[0] {
		t.Fatal("freebsd maxsockbuf rule")
	}
}

func TestValidation(t *testing.T) {
	for _, in := range []Input{
		{Rate: 0, RTT: time.Millisecond, Streams: 1, Connections: 1, Role: "host", OS: "linux"},
		{Rate: 1e9, RTT: 0, Streams: 1, Connections: 1, Role: "host", OS: "linux"},
		{Rate: 1e9, RTT: time.Millisecond, Streams: 0, Connections: 1, Role: "host", OS: "linux"},
		{Rate: 1e9, RTT: time.Millisecond, Streams: 1, Connections: 1, Role: "toaster", OS: "linux"},
		{Rate: 1e9, RTT: time.Millisecond, Streams: 1, Connections: 1, Role: "host", OS: "plan9"},
	} {
		if _, err := Advise(in); err == nil {
			t.Errorf("%+v accepted", in)
		}
	}
	a, _ := Advise(base("macos"))
	if _, err := Render(a, "tuned"); err == nil {
		t.Error("tuned for macos accepted")
	}
}

func TestWithHost(t *testing.T) {
	in := WithHost(Input{OS: "linux"}, "linux", "testdata/host")
	if in.Memory != 16384000*1024 || in.TCPMemMax != 300*int64(os.Getpagesize()) {
		t.Fatalf("%+v", in)
	}
	if in := WithHost(Input{OS: "linux", Memory: 1 << 30}, "linux", "testdata/host"); in.Memory != 1<<30 {
		t.Fatalf("--memory overridden: %+v", in)
	}
	for _, c := range [][2]string{{"freebsd", "linux"}, {"linux", "darwin"}} {
		if in := WithHost(Input{OS: c[0]}, c[1], "testdata/host"); in.Memory != 0 || in.TCPMemMax != 0 {
			t.Fatalf("advice for %s on %s took this host's facts: %+v", c[0], c[1], in)
		}
	}
	if in.Kernel != "6.1.0-18-amd64" {
		t.Errorf("kernel %q, want testdata's osrelease", in.Kernel)
	}
	if in := WithHost(Input{OS: "linux"}, "linux", "testdata/none"); in.Memory != 0 {
		t.Fatal("memory from nowhere")
	}
}

// A 10 Gbit/s × 80 ms data-transfer host needs more than buffers: fq
// and pacing, rmem_max/wmem_max for tools that set -w, the MTU and the
// transmit queue, in every output format of every OS, each with its
// command. The memory warning names a quarter of RAM, not the whole.
func TestDataTransferHost(t *testing.T) {
	for _, osName := range []string{"linux", "freebsd", "solaris10", "solaris11", "macos", "windows"} {
		in := base(osName)
		in.Rate, in.RTT, in.Memory = 10e9, 80*time.Millisecond, 25<<30
		a, err := Advise(in)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Link) == 0 || a.Link[0].Name != "mtu" || a.Link[0].Command == "" {
			t.Errorf("%s: link advice %+v", osName, a.Link)
		}
		for _, f := range Formats[osName] {
			out, err := Render(a, f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, a.Link[0].Command) && !(f == "json" && strings.Contains(out, `"link"`)) {
				t.Errorf("%s --format %s lacks the MTU command %q", osName, f, a.Link[0].Command)
			}
		}
		if osName != "linux" {
			continue
		}
		keys := map[string]string{}
		for _, s := range a.Settings {
			keys[s.Key] = s.Value()
		}
		if keys["net.core.default_qdisc"] != "fq" || keys["net.core.rmem_max"] == "" || keys["net.core.wmem_max"] == "" {
			t.Errorf("linux settings %v", keys)
		}
		if len(a.Link) != 2 || a.Link[1].Name != "txqueuelen" || a.Link[1].Value != 10000 {
			t.Errorf("linux link %+v", a.Link)
		}
		if !strings.Contains(a.Budget.Note, "a quarter of RAM (6.7 GB of 26.8 GB)") {
			t.Errorf("budget: %s", a.Budget.Note)
		}
	}
	// At 1 Gbit/s, and for a router, the links are left as they are.
	if a, _ := Advise(base("linux")); len(a.Link) != 0 {
		t.Errorf("1G: %+v", a.Link)
	}
	r := base("linux")
	r.Rate, r.Role = 10e9, "router"
	if a, _ := Advise(r); len(a.Link) != 0 {
		t.Errorf("router: %+v", a.Link)
	}
}
