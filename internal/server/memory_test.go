package server

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/sysctl"
	"github.com/tcptune/tcptune/internal/wire"
)

func TestTestMemory(t *testing.T) {
	const MiB = 1 << 20
	for _, c := range []struct {
		name string
		p    wire.Params
		wmem int64
		want int64
	}{
		{"one stream, default block", wire.Params{Parallel: 1}, 4 * MiB, 128 << 10},
		{"a small block takes the engine's 64 KiB", wire.Params{Parallel: 2, Len: 1000}, 4 * MiB, 2 * 64 << 10},
		{"-P 128 --bidir -l 1M", wire.Params{Parallel: 128, Bidirectional: true, Len: MiB}, 4 * MiB, 256 * MiB},
		{"-w forward: the server receives, it reads", wire.Params{Parallel: 1, Window: 512 * MiB}, 4 * MiB, 128 << 10},
		{"-R -w 512M, wmem_max 4M", wire.Params{Parallel: 1, Reverse: true, Window: 512 * MiB}, 4 * MiB, 128<<10 + 8*MiB},
		{"-R -w 512M, wmem_max raised", wire.Params{Parallel: 1, Reverse: true, Window: 512 * MiB}, 1 << 30, 128<<10 + 1024*MiB},
		{"--bidir -P 4 -w 16M", wire.Params{Parallel: 4, Bidirectional: true, Window: 16 * MiB}, 64 * MiB, 8*128<<10 + 4*32*MiB},
		{"UDP -w: no TCP send queue", wire.Params{Parallel: 1, Reverse: true, UDP: true, Window: 16 * MiB}, 64 * MiB, 64 << 10},
	} {
		if got := testMemory(c.p, c.wmem); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestMemoryBudgets(t *testing.T) {
	root := t.TempDir()
	fs := sysctl.FS{Root: root}
	if per, total := memoryBudgets(Options{}, fs); per != defaultTestMemory || total != defaultMemory {
		t.Errorf("without tcp_mem: %d %d", per, total)
	}
	p, _ := fs.Path("net.ipv4.tcp_mem")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("287901\t383868\t575802\n"), 0o644)
	if per, total := memoryBudgets(Options{}, fs); total != 383868*4096 || per != total/2 {
		t.Errorf("from tcp_mem: %d %d", per, total)
	}
	if per, total := memoryBudgets(Options{MaxMemory: 100 << 20}, fs); total != 100<<20 || per != 100<<20 {
		t.Errorf("a total below the per-test default bounds it: %d %d", per, total)
	}
}

// A test over the per-test budget is refused with the error of the
// option that makes it so; tests that fit one by one but not together
// wait as a busy server's do; a finished test gives its memory back.
func TestMemoryBudgetRefusals(t *testing.T) {
	const MiB = 1 << 20
	_, addr, logs := startServer(t, Options{MaxTestMemory: 64 * MiB, MaxMemory: 80 * MiB, MaxTests: 8, MaxPerClient: 8, SetupTimeout: time.Minute})
	c, _ := control(t, addr)
	wire.WriteJSON(c, wire.Params{Time: 10, Parallel: 128, Bidirectional: true, Len: MiB, ServerAffinity: -1})
	expectError(t, c, wire.IENumStreams)
	c, _ = control(t, addr)
	wire.WriteJSON(c, wire.Params{Time: 10, Parallel: 8, Reverse: true, Window: 512 * MiB, ServerAffinity: -1})
	expectError(t, c, wire.IEBufSize)
	params := func(c net.Conn, p wire.Params) byte {
		body, _ := p.Encode()
		wire.WriteRaw(c, body)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		st, err := wire.ReadState(c)
		if err != nil {
			t.Fatalf("state after the parameters: %v", err)
		}
		return byte(st)
	}
	fits := wire.Params{Time: 10, Parallel: 48, Len: MiB, ServerAffinity: -1} // 48 MiB
	a, _ := control(t, addr)
	if st := params(a, fits); st != byte(wire.CreateStreams) {
		t.Fatalf("a test within the budgets: state %d", st)
	}
	b, _ := control(t, addr)
	if st := params(b, fits); st != 0xff {
		t.Fatalf("a second one over the total: state %d, want ACCESS_DENIED", st)
	}
	a.Close() // the first ends: its memory is free again
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, _ := control(t, addr)
		st := params(d, fits)
		d.Close()
		if st == byte(wire.CreateStreams) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the memory of an ended test was not given back; log:\n%s", logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
