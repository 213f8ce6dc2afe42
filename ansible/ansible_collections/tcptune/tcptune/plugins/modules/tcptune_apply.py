#!/usr/bin/python
# -*- coding: utf-8 -*-
from __future__ import annotations

DOCUMENTATION = r"""
module: tcptune_apply
short_description: Apply kernel socket-buffer settings with tcptune (validated, backed up, rolled back on failure)
description:
  - Runs C(tcptune apply --json) with the given sysctl settings, or with those
    C(tcptune advise) recommends for a rate and an RTT.
  - Check mode runs C(apply --dry-run) and changes nothing; with C(--diff) it
    shows each key's old and new value.
  - Idempotent - a second run with the same settings reports no change.
options:
  settings:
    description:
      - sysctl keys and values, e.g. C(net.ipv4.tcp_rmem) to C("4096 131072 16777216").
      - Link settings too, C(link.IFNAME.mtu) and C(link.IFNAME.txqueuelen), e.g. C(link.eth0.mtu) to C(9000).
    type: dict
  advise:
    description: Apply C(tcptune advise)'s recommendation for these (C(rate), C(rtt), optional C(streams), C(role)).
    type: dict
  tune_result:
    description:
      - Path on the host of a C(tcptune tune --json) result (for example a canary's, copied there) - its verified choice is applied.
      - A result that kept nothing fails with the result's reason.
    type: path
  persist:
    description:
      - Also write /etc/sysctl.d/90-tcptune.conf for sysctls, and keep link settings in the network configuration that owns the interface (ifupdown, systemd-networkd, NetworkManager, else a systemd .link file); the files are returned as C(persist_files).
    type: bool
    default: false
  netns:
    description: Apply inside this network namespace.
    type: str
  force:
    description: Also write keys outside tcptune's catalogue.
    type: bool
    default: false
  binary:
    description: Path of tcptune on the host (default - found on PATH).
    type: str
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tcptune.tcptune.plugins.module_utils.tcptune import one_line, run


def main():
    module = AnsibleModule(
        argument_spec=dict(
            settings=dict(type="dict"),
            advise=dict(type="dict"),
            tune_result=dict(type="path"),
            persist=dict(type="bool", default=False),
            netns=dict(type="str"),
            force=dict(type="bool", default=False),
            binary=dict(type="str"),
        ),
        mutually_exclusive=[("settings", "advise", "tune_result")],
        required_one_of=[("settings", "advise", "tune_result")],
        supports_check_mode=True,
    )
    p = module.params
    args = ["apply", "--json"]
    tmp = None
    if p["advise"]:
        a = p["advise"]
        if "rate" not in a or "rtt" not in a:
            module.fail_json(msg="advise: give rate and rtt")
        adv = ["advise", "--rate", a["rate"], "--rtt", a["rtt"], "--format", "sysctl"]
        for k in ("streams", "role", "memory", "connections"):
            if k in a:
                adv += ["--" + k, a[k]]
        binary = p.get("binary") or module.get_bin_path("tcptune", required=True)
        rc, out, err = module.run_command([binary] + [str(x) for x in adv])
        if rc != 0:
            module.fail_json(msg=one_line(out, err), rc=rc)
        fd, tmp = tempfile.mkstemp(prefix="tcptune-advise-", suffix=".conf")
        with os.fdopen(fd, "w") as f:
            f.write(out)
        args.append(tmp)
    elif p["tune_result"]:
        args.append(p["tune_result"])
    else:
        for k in sorted(p["settings"]):
            args += ["--set", "%s=%s" % (k, p["settings"][k])]
    if p["persist"]:
        args.append("--persist")
    if p["netns"]:
        args += ["--netns", p["netns"]]
    if p["force"]:
        args.append("--force")
    if module.check_mode:
        args.append("--dry-run")
    try:
        res = run(module, args)
    finally:
        if tmp:
            os.unlink(tmp)
    changes = res.get("changes") or []
    changed = bool(changes) if module.check_mode else bool(res.get("changed"))
    result = dict(changed=changed, changes=changes, backup=res.get("backup", ""), persist_file=res.get("persist_file", ""), persist_files=res.get("persist_files") or [])
    if module._diff:
        result["diff"] = dict(
            before="".join("%s = %s\n" % (c["key"], c["old"]) for c in changes),
            after="".join("%s = %s\n" % (c["key"], c["new"]) for c in changes),
            before_header="sysctl (now)", after_header="sysctl (after tcptune apply)",
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
