package apply

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// tuneResult is the part of a tune --json result apply reads: the
// choice's ID, whether it was kept and why, and each candidate's
// settings (fields tune keeps frozen).
type tuneResult struct {
	Choice     string `json:"choice"`
	Kept       bool   `json:"kept"`
	Why        string `json:"why"`
	Candidates []struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Settings []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"settings"`
	} `json:"candidates"`
}

// ReadChoice reads a tune --json result and returns the settings of its
// verified choice (a fleet applies one host's verified result to
// others). A result whose choice was not kept, or that changes nothing,
// is refused with the result's own reason.
func ReadChoice(r io.Reader) ([]KV, error) {
	var res tuneResult
	if err := json.NewDecoder(io.LimitReader(r, 64<<20)).Decode(&res); err != nil {
		return nil, fmt.Errorf("not a tune --json result: %v", err)
	}
	for _, c := range res.Candidates {
		if c.ID != res.Choice || res.Choice == "" {
			continue
		}
		if !res.Kept {
			return nil, fmt.Errorf("the tune result kept nothing: %s", res.Why)
		}
		if len(c.Settings) == 0 {
			return nil, fmt.Errorf("the tune result's choice (%s) changes nothing", c.Name)
		}
		kvs := make([]KV, len(c.Settings))
		for i, s := range c.Settings {
			kvs[i] = KV{Key: s.Key, Value: s.Value}
		}
		return kvs, nil
	}
	return nil, errors.New("a tune result without a choice")
}

// ReadSettings reads what apply takes from a file: a tune --json result
// (its verified choice, see ReadChoice) when it starts with "{", else
// sysctl.conf lines (Parse).
func ReadSettings(r io.Reader) ([]KV, error) {
	br := bufio.NewReader(r)
	for {
		b, err := br.Peek(1)
		if err != nil || !strings.ContainsRune(" \t\r\n", rune(b[0])) {
			break
		}
		br.ReadByte()
	}
	if b, err := br.Peek(1); err == nil && b[0] == '{' {
		return ReadChoice(br)
	}
	return Parse(br)
}

// ReadRequest is what apply is asked to write: the settings of file
// (ReadSettings; "" for none), then each --set KEY=VALUE. Its errors
// name the file or the flag.
func ReadRequest(file string, sets []string) ([]KV, error) {
	var kvs []KV
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if kvs, err = ReadSettings(f); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
	}
	for _, s := range sets {
		kv, err := ParseSet(s)
		if err != nil {
			return nil, fmt.Errorf("--set: %v", err)
		}
		kvs = append(kvs, kv)
	}
	if len(kvs) == 0 {
		return nil, errors.New("apply: give a FILE (sysctl.conf syntax) or --set KEY=VALUE")
	}
	return kvs, nil
}
