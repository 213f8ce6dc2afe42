#!/usr/bin/python
# -*- coding: utf-8 -*-
from __future__ import annotations

DOCUMENTATION = r"""
module: tcptune_tune
short_description: Tune this host's TCP buffers against a reference server (tcptune tune --peer)
description:
  - Measures the baseline to a tcptune or iperf3 server, searches the buffer sizes,
    verifies the smallest that reaches the best throughput, and with I(apply) keeps it
    (backed up; undo with M(tcptune.tcptune.tcptune_rollback)).
  - Check mode measures but applies nothing; it reports a change when tune would keep one.
options:
  peer:
    description: The reference server.
    type: str
    required: true
  port:
    description: The reference server's port.
    type: int
    default: 5201
  apply:
    description: Keep the verified choice on this host.
    type: bool
    default: true
  persist:
    description: With I(apply), also write /etc/sysctl.d/90-tcptune.conf.
    type: bool
    default: false
  time:
    description: Measured seconds per trial.
    type: float
  trials:
    description: Trials per candidate and direction (2..50).
    type: int
  direction:
    description: both, forward or reverse.
    type: str
  compare:
    description:
      - How the reference profiles are measured - short (one short trial each, the default),
        full (every direction) or none (listed, unmeasured - a quicker run).
    type: str
  budget:
    description:
      - Trial seconds the search may spend, the baseline's included (tune's --budget; 10..3600;
        default 180, 240 at an RTT of 500 ms or more). A smaller one makes a quicker canary that
        screens fewer points.
    type: float
  binary:
    description: Path of tcptune on the host (default - found on PATH).
    type: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tcptune.tcptune.plugins.module_utils.tcptune import run


def main():
    module = AnsibleModule(
        argument_spec=dict(
            peer=dict(type="str", required=True),
            port=dict(type="int", default=5201),
            apply=dict(type="bool", default=True),
            persist=dict(type="bool", default=False),
            time=dict(type="float"),
            trials=dict(type="int"),
            direction=dict(type="str", choices=["both", "forward", "reverse"]),
            compare=dict(type="str", choices=["short", "full", "none"]),
            budget=dict(type="float"),
            binary=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    p = module.params
    args = ["tune", "--peer", p["peer"], "--port", p["port"], "--json"]
    if p["apply"] and not module.check_mode:
        args.append("--apply")
        if p["persist"]:
            args.append("--persist")
    if p["time"]:
        args += ["--time", p["time"]]
    if p["trials"]:
        args += ["--trials", p["trials"]]
    if p["direction"]:
        args += ["--direction", p["direction"]]
    if p["compare"]:
        args.append("--compare=" + p["compare"])
    if p["budget"]:
        args += ["--budget", p["budget"]]
    res = run(module, args)
    changed = bool(res.get("kept")) if module.check_mode or not p["apply"] else bool(res.get("applied"))
    module.exit_json(changed=changed, kept=res.get("kept"), applied=res.get("applied"), choice=res.get("choice"),
                     backup=res.get("backup_id", ""), already_full=res.get("already_full", False), result=res)


if __name__ == "__main__":
    main()
