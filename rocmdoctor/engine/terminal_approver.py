"""Approval of remediations at the terminal.

Nothing runs without a yes: --yes approves low and medium risk only; high
risk always needs the host name typed. With no one to ask (EOF on stdin,
as under cron) the answer is no.
"""

from __future__ import annotations

import sys

from rocmdoctor.transports.audit import local_user
from rocmdoctor.results import RemediationPlan
from rocmdoctor.engine.triage import Approver, Decision


def prompt_approver(*, auto_approve: bool = False) -> Approver:
    def approve(plan: RemediationPlan, host: str) -> Decision:
        user = local_user()
        err = sys.stderr
        print(f"\nRemediation on {host}: {plan.title}  [{plan.risk} risk]", file=err)
        print(f"  $ {plan.command}", file=err)
        if plan.verify_check:
            print(f"  verify afterwards: {plan.verify_check}", file=err)
        if plan.rollback:
            print(f"  rollback: {plan.rollback}", file=err)
        if plan.confirm == "typed" or plan.risk == "high":
            answer = _ask(f"  High risk: type the host name ({host}) to run it, anything else to skip: ")
            if answer is None:
                return Decision(False, user, "high risk needs the host name typed at a prompt; no input")
            if answer.strip() == host:
                return Decision(True, user)
            return Decision(False, user, "declined (host name not typed)")
        if auto_approve:
            print("  approved by --yes", file=err)
            return Decision(True, f"{user} (--yes)")
        answer = _ask("  Run it? [y/N] ")
        if answer is None:
            return Decision(False, user, "no answer (no input); rerun at a terminal or with --yes")
        if answer.strip().lower() in ("y", "yes"):
            return Decision(True, user)
        return Decision(False, user, "declined")

    return approve


def _ask(prompt: str) -> str | None:
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line:
        print(file=sys.stderr)
        return None
    return line
