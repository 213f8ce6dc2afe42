// Package apply changes Linux sysctls safely: it validates every value
// first (the key exists and is writable in the target namespace, types,
// bounds, min ≤ default ≤ max), records the previous values in a backup
// before writing anything, writes, and restores what it wrote if any
// write fails. With persist it also writes a sysctl.d file atomically.
// Rollback restores a backup.
package apply

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tcptune/tcptune/internal/sysctl"
)

// KV is one key = value line.
type KV struct {
	Key, Value string
	Line       int
}

// Parse reads sysctl.conf syntax: "key = value" lines, '#' and ';'
// comments, blank lines. A leading '-' (ignore errors) is not accepted:
// apply validates everything.
func Parse(r io.Reader) ([]KV, error) {
	var out []KV
	sc := bufio.NewScanner(r)
	n := 0
	seen := map[string]int{}
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: want key = value, got %q", n, line)
		}
		kv, err := ParseSet(strings.TrimSpace(k) + "=" + strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if prev, dup := seen[kv.Key]; dup { // in either spelling: ParseSet made it canonical
			return nil, fmt.Errorf("line %d: %s already set on line %d", n, kv.Key, prev)
		}
		seen[kv.Key] = n
		kv.Line = n
		out = append(out, kv)
	}
	return out, sc.Err()
}

// ParseSet reads one KEY=VALUE (from --set).
func ParseSet(s string) (KV, error) {
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.Join(strings.Fields(strings.Trim(strings.TrimSpace(v), `"'`)), " ")
	if !ok || k == "" || v == "" {
		return KV{}, fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	if strings.HasPrefix(k, "-") {
		return KV{}, fmt.Errorf("%s: the '-' (ignore errors) prefix is not accepted", k)
	}
	return KV{Key: sysctl.Canonical(k), Value: v}, nil
}

// CheckDuplicates refuses a request that sets one key twice (in either
// spelling, net.ipv4.tcp_rmem or net/ipv4/tcp_rmem): which value was
// meant is not for apply to guess, and rollback would see the first
// value as drift.
func CheckDuplicates(kvs []KV) error {
	seen := map[string]KV{}
	for _, kv := range kvs {
		k := sysctl.Canonical(kv.Key)
		if prev, dup := seen[k]; dup {
			return fmt.Errorf("%s: set twice in one request (%q and %q); give each key once", k, prev.Value, kv.Value)
		}
		seen[k] = kv
	}
	return nil
}
