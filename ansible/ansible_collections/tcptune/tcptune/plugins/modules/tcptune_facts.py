#!/usr/bin/python
# -*- coding: utf-8 -*-
from __future__ import annotations

DOCUMENTATION = r"""
module: tcptune_facts
short_description: The host's buffer knobs (tcptune show) and its other bottlenecks (tcptune doctor) as facts
description:
  - Sets C(tcptune_show) (the knobs' values, the windows they allow, the caps per RTT) and,
    when asked, C(tcptune_doctor) (the host checks, each with its verdict, evidence and fix).
  - Changes nothing.
options:
  gather:
    description: What to gather - show, doctor.
    type: list
    elements: str
    default: [show]
  netns:
    description: Read the knobs inside this namespace.
    type: str
  binary:
    description: Path of tcptune on the host (default - found on PATH).
    type: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tcptune.tcptune.plugins.module_utils.tcptune import run


def main():
    module = AnsibleModule(
        argument_spec=dict(
            gather=dict(type="list", elements="str", default=["show"]),
            netns=dict(type="str"),
            binary=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    p = module.params
    facts = {}
    if "show" in p["gather"]:
        args = ["show", "--json"]
        if p["netns"]:
            args += ["--netns", p["netns"]]
        facts["tcptune_show"] = run(module, args)
    if "doctor" in p["gather"]:
        facts["tcptune_doctor"] = run(module, ["doctor", "--json"], ok_rc=(0, 2))  # 2: a check failed
    module.exit_json(changed=False, ansible_facts=facts)


if __name__ == "__main__":
    main()
