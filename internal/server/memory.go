package server

import (
	"fmt"

	"github.com/tcptune/tcptune/internal/sysctl"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/wire"
)

// A test's buffer memory is bounded before it starts, per test and
// across the tests running at once, so that no client can make the
// server hold more than the host can spare: a -P 128 --bidir -l 1M test
// allocates 256 blocks of 1 MiB, and a -R -w 512M test against a client
// that never reads leaves the server's send buffers full (the kernel
// grants 2 × the window, up to 2 × net.core.wmem_max, and keeps what the
// client does not take).

// minBlock is the smallest buffer the engine gives a stream (its reads
// are at least 64 KiB).
const minBlock = 64 << 10

// testMemory estimates the bytes a test with parameters p can make the
// server hold: one block per stream, and, for an explicit window, the
// send buffer of each stream the server sends on, as the kernel grants
// it. Without -w the kernel's autotuning sizes buffers by what the path
// delivers, within tcp_wmem and tcp_mem, and a client that does not
// read lets none grow: not counted.
func testMemory(p wire.Params, wmemMax int64) int64 {
	streams := int64(p.Parallel)
	sending := int64(0) // streams the server sends on
	switch {
	case p.Bidirectional:
		streams *= 2
		sending = int64(p.Parallel)
	case p.Reverse:
		sending = int64(p.Parallel)
	}
	mem := streams * int64(max(p.BlockLen(minBlock), minBlock))
	if p.Window > 0 && !p.UDP {
		sndbuf := int64(p.Window)
		if wmemMax > 0 {
			sndbuf = min(sndbuf, wmemMax)
		}
		mem += sending * 2 * sndbuf
	}
	return mem
}

// Memory budgets when none is given: all tests together at most the
// kernel's TCP memory-pressure threshold (tcp_mem's second value, in
// pages), one test at most half of it; 1 GiB and 512 MiB where tcp_mem
// cannot be read.
const (
	pageSize          = 4096
	defaultMemory     = 1 << 30
	defaultTestMemory = 512 << 20
)

// memoryBudgets are o's budgets, the defaults filled in from fs.
func memoryBudgets(o Options, fs sysctl.FS) (perTest, total int64) {
	perTest, total = o.MaxTestMemory, o.MaxMemory
	pressure := fs.Int("net.ipv4.tcp_mem", 1) * pageSize
	if total <= 0 {
		total = defaultMemory
		if pressure > 0 {
			total = pressure
		}
	}
	if perTest <= 0 {
		perTest = defaultTestMemory
		if pressure > 0 {
			perTest = pressure / 2
		}
		perTest = min(perTest, total)
	}
	return perTest, total
}

// reserveMemory takes a test's estimate from the budget (s.mu held); it
// says why not when the test alone is over its budget (tooBig) or the
// tests running hold too much for it now.
func (s *Server) reserveMemory(mem int64) (tooBig bool, err error) {
	switch {
	case mem > s.testBudget:
		return true, fmt.Errorf("the test would hold %s of buffers, over the per-test budget of %s (--max-test-memory)", units.FormatSize(float64(mem)), units.FormatSize(float64(s.testBudget)))
	case s.memory+mem > s.memBudget:
		return false, fmt.Errorf("busy: the tests running hold %s of buffers; %s more is over the budget of %s (--max-memory)", units.FormatSize(float64(s.memory)), units.FormatSize(float64(mem)), units.FormatSize(float64(s.memBudget)))
	}
	s.memory += mem
	return false, nil
}
