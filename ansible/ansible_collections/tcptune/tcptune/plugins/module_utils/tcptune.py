# -*- coding: utf-8 -*-
"""Runs tcptune with --json for the tcptune.tcptune modules."""

from __future__ import annotations

import json

PREFIXES = ("tcptune: error - ", "iperf3: error - ")


def one_line(out, err):
    """tcptune's own one-line error message, without its prefix."""
    for text in (err, out):
        lines = [line for line in (text or "").strip().splitlines() if line.strip()]
        if lines:
            line = lines[-1].strip()
            for p in PREFIXES:
                if line.startswith(p):
                    return line[len(p):]
            return line
    return "tcptune failed without a message"


def run(module, args, ok_rc=(0,)):
    """Runs tcptune ARGS and returns its JSON output; fails the module
    with tcptune's one-line message on any other exit status."""
    binary = module.params.get("binary") or module.get_bin_path("tcptune", required=True)
    cmd = [binary] + [str(a) for a in args]
    rc, out, err = module.run_command(cmd)
    if rc not in ok_rc:
        module.fail_json(msg=one_line(out, err), rc=rc, cmd=cmd, stdout=out, stderr=err)
    try:
        return json.loads(out)
    except ValueError:
        module.fail_json(msg="tcptune printed no JSON", rc=rc, cmd=cmd, stdout=out, stderr=err)
