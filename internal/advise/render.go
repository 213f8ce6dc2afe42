package advise

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tcptune/tcptune/internal/units"
)

// Formats lists the output formats per OS; the first is the default.
var Formats = map[string][]string{
	"linux":     {"text", "sysctl", "script", "tuned", "ansible", "json"},
	"freebsd":   {"text", "sysctl", "json"},
	"solaris10": {"text", "script", "json"},
	"solaris11": {"text", "script", "json"},
	"macos":     {"text", "sysctl", "json"},
	"windows":   {"text", "script", "json"},
}

// Render writes the advice in a format.
func Render(a Advice, format string) (string, error) {
	ok := false
	for _, f := range Formats[a.Input.OS] {
		ok = ok || f == format
	}
	if !ok {
		return "", fmt.Errorf("--format: for %s accepts %s", a.Input.OS, strings.Join(Formats[a.Input.OS], ", "))
	}
	var b strings.Builder
	switch format {
	case "json":
		out, err := json.MarshalIndent(a, "", "  ")
		return string(out) + "\n", err
	case "text":
		text(&b, a)
	case "sysctl":
		header(&b, a, "#")
		for _, s := range a.Settings {
			fmt.Fprintf(&b, "# %s\n%s = %s\n", s.Reason, s.Key, s.Value())
		}
	case "script":
		script(&b, a)
	case "tuned":
		header(&b, a, "#")
		fmt.Fprintf(&b, "[main]\nsummary=tcptune: buffers for %s\ninclude=network-throughput\n\n[sysctl]\n", path(a))
		for _, s := range a.Settings {
			fmt.Fprintf(&b, "%s=%s\n", s.Key, s.Value())
		}
	case "ansible":
		header(&b, a, "#")
		b.WriteString("- name: TCP buffers sized to the bandwidth-delay product (tcptune)\n  hosts: all\n  become: true\n  tasks:\n")
		for _, s := range a.Settings {
			fmt.Fprintf(&b, "    - name: %s\n      ansible.posix.sysctl:\n        name: %s\n        value: %q\n        sysctl_file: /etc/sysctl.d/90-tcptune.conf\n        reload: true\n", s.Key, s.Key, s.Value())
		}
	}
	return b.String(), nil
}

func path(a Advice) string {
	rate := units.FormatRateShort(a.Input.Rate)
	if a.Input.RateAsWritten != "" {
		rate = a.Input.RateAsWritten
	}
	return fmt.Sprintf("%s × %s, %d stream(s)", rate, units.FormatDuration(a.Input.RTT), a.Input.Streams)
}

func header(b *strings.Builder, a Advice, c string) {
	fmt.Fprintf(b, "%s tcptune advise: %s, role %s; BDP %s (%s per stream)\n", c, path(a), a.Input.Role, units.FormatSize(float64(a.BDP)), units.FormatSize(float64(a.StreamBDP)))
	fmt.Fprintf(b, "%s memory budget: %s\n", c, a.Budget.Note)
	for _, w := range a.Warnings {
		fmt.Fprintf(b, "%s warning: %s\n", c, w)
	}
	for _, l := range a.Link {
		fmt.Fprintf(b, "%s link: %s %d (IF = the interface): %s\n%s   %s\n", c, l.Name, l.Value, l.Reason, c, l.Command)
	}
}

func script(b *strings.Builder, a Advice) {
	switch a.Input.OS {
	case "windows":
		b.WriteString("# PowerShell, as Administrator\n")
		header(b, a, "#")
		for _, s := range a.Settings {
			fmt.Fprintf(b, "# %s\nSet-NetTCPSetting -SettingName Internet -AutoTuningLevelLocal %s\nSet-NetTCPSetting -SettingName Datacenter -AutoTuningLevelLocal %s\n", s.Reason, s.Text, s.Text)
			fmt.Fprintf(b, "# or: netsh interface tcp set global autotuninglevel=%s\n", strings.ToLower(s.Text))
		}
		b.WriteString("# check: Get-NetTCPSetting | Select SettingName,AutoTuningLevelLocal,AutoTuningLevelEffective\n")
	case "solaris10":
		b.WriteString("#!/bin/sh\n")
		header(b, a, "#")
		fmt.Fprintf(b, "# not persistent: install as %s\n", a.Persist)
		for _, s := range a.Settings {
			fmt.Fprintf(b, "# %s\nndd -set /dev/tcp %s %s\n", s.Reason, s.Key, s.Value())
		}
	case "solaris11":
		b.WriteString("#!/bin/sh\n")
		header(b, a, "#")
		for _, s := range a.Settings {
			fmt.Fprintf(b, "# %s\nipadm set-prop -p %s=%s tcp\n", s.Reason, s.Key, s.Value())
		}
	default:
		b.WriteString("#!/bin/sh\nset -e\n")
		header(b, a, "#")
		for _, s := range a.Settings {
			fmt.Fprintf(b, "# %s\nsysctl -w %s=%q\n", s.Reason, s.Key, s.Value())
		}
	}
}

func text(b *strings.Builder, a Advice) {
	fmt.Fprintf(b, "Path: %s (%s); role %s\n", path(a), a.Input.OS, a.Input.Role)
	fmt.Fprintf(b, "Bandwidth-delay product: %s (%s per stream)\n\n", units.FormatSize(float64(a.BDP)), units.FormatSize(float64(a.StreamBDP)))
	for _, s := range a.Settings {
		fmt.Fprintf(b, "%s = %s\n    %s\n", s.Key, s.Value(), s.Reason)
	}
	for _, l := range a.Link {
		fmt.Fprintf(b, "link %s %d\n    %s\n    $ %s   (IF = the interface)\n", l.Name, l.Value, l.Reason, l.Command)
	}
	fmt.Fprintf(b, "\nMemory budget: %s\n", a.Budget.Note)
	for _, w := range a.Warnings {
		fmt.Fprintf(b, "Warning: %s\n", w)
	}
	for _, m := range a.Myths {
		fmt.Fprintf(b, "Myth: %s\n", m)
	}
	if a.CrossCheck != "" {
		fmt.Fprintf(b, "Cross-check: %s\n", a.CrossCheck)
	}
	fmt.Fprintf(b, "Persist: %s\n", a.Persist)
}
