#!/usr/bin/python
# -*- coding: utf-8 -*-
from __future__ import annotations

DOCUMENTATION = r"""
module: tcptune_rollback
short_description: Restore what a tcptune apply replaced
description:
  - Rolls back the given backup, or the latest applied one (of the namespace).
  - Idempotent - with no applied backup left it reports no change.
options:
  id:
    description: The backup to restore (default - the latest applied).
    type: str
  netns:
    description: The namespace whose latest backup to restore.
    type: str
  binary:
    description: Path of tcptune on the host.
    type: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tcptune.tcptune.plugins.module_utils.tcptune import run


def main():
    module = AnsibleModule(
        argument_spec=dict(id=dict(type="str"), netns=dict(type="str"), binary=dict(type="str")),
        supports_check_mode=True,
    )
    p = module.params
    listing = ["rollback", "--list", "--json"]
    if p["netns"]:
        listing += ["--netns", p["netns"]]
    backups = run(module, listing) or []
    ns = p["netns"] or ""
    # "here": the backup belongs to the namespace rollback will run in
    # (older tcptune versions lack it: compare the namespace's name).
    pending = [b for b in backups if b.get("state") == "applied"
               and b.get("here", (b.get("netns") or "") == ns)
               and (not p["id"] or b.get("id") == p["id"])]
    if not pending:
        module.exit_json(changed=False, msg="nothing to roll back")
    if module.check_mode:
        module.exit_json(changed=True, backup=pending[-1]["id"])
    args = ["rollback", "--json"]
    if p["id"]:
        args.append(p["id"])
    if p["netns"]:
        args += ["--netns", p["netns"]]
    res = run(module, args)
    module.exit_json(changed=True, backup=res.get("backup", ""), changes=res.get("changes") or [])


if __name__ == "__main__":
    main()
