"""`rocmdoctor rollback`: boot a cohort's hosts into the kernel the baseline sweep saw (issue 43).

Per host: one read-only command reads the boot loader, the plan is shown, and nothing changes
without approval (--yes approves, as for `triage --fix`); --dry-run prints and audits the
commands without sending them. The verification is the rollout gate after the reboot.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, List, Optional

import typer

if TYPE_CHECKING:
    from rocmdoctor.engine.triage import Approver
    from rocmdoctor.fleet.inventory import HostSpec
    from rocmdoctor.fleet.sweep_open import FleetOpener

from rocmdoctor.cli.common import AcceptNewOpt, SSHConfigOpt

ATTRIBUTES = ("kernel",)


def rollback(
    targets: List[str] = typer.Argument(..., help="Hosts to roll back: hostnames, hostlist expressions, @FILE (as for sweep)."),
    baseline: str = typer.Option(..., "--baseline", help="The sweep document taken before the rollout (--format json -o FILE)."),
    attribute: str = typer.Option("kernel", "--attribute", help="What to roll back: kernel (boot the previous kernel)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show and audit-log what would run; change nothing."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve each host's rollback without asking (medium risk)."),
    ssh_config: Optional[str] = SSHConfigOpt,
    accept_new_host_keys: bool = AcceptNewOpt,
    sudo: bool = typer.Option(False, "--sudo", help="Run the commands with sudo -n."),
    timeout: float = typer.Option(60.0, "--timeout", "-t", min=1.0, help="Per-host connect budget in seconds."),
    audit_log: Optional[str] = typer.Option(None, "--audit-log", help="Audit log file (default $ROCMDOCTOR_AUDIT_LOG or the state dir)."),
) -> None:
    """Set each host's default boot entry back to the kernel in the baseline sweep (no reboot).

    Examples:

      rocmdoctor rollback 'gpu[151-170]' --baseline before.json --dry-run

      rocmdoctor rollback 'gpu[151-170]' --baseline before.json --yes && scontrol reboot ASAP nextstate=RESUME reason="kernel rollback" 'gpu[151-170]'
    """
    from rocmdoctor.cli.common import handle_errors

    with handle_errors():
        code = _run(targets, baseline, attribute, dry_run, yes, ssh_config, accept_new_host_keys, sudo, timeout, audit_log)
    raise typer.Exit(code)


def _run(targets: List[str], baseline: str, attribute: str, dry_run: bool, yes: bool, ssh_config: Optional[str],
         accept_new: bool, sudo: bool, timeout: float, audit_log: Optional[str]) -> int:
    import shlex
    from pathlib import Path

    from rocmdoctor.engine.terminal_approver import prompt_approver
    from rocmdoctor.errors import RocmdoctorError
    from rocmdoctor.fleet.changes import load_baseline
    from rocmdoctor.fleet.hostlist import fold
    from rocmdoctor.fleet.inventory import resolve_targets
    from rocmdoctor.fleet.sweep_open import FleetOpener
    from rocmdoctor.status import ExitStatus
    from rocmdoctor.transports.audit import AuditLog

    if attribute not in ATTRIBUTES:
        raise RocmdoctorError(f"--attribute {attribute}: only a kernel rollback is automated",
                              "an amdgpu-dkms or ROCm rollback reinstalls the previous release's packages: "
                              "see docs/rollouts.md, 'Rolling back a driver or ROCm release'")
    path, doc = load_baseline(baseline)
    before = {h["host"]: (h.get("fingerprint") or {}) for h in doc["hosts"] if isinstance(h, dict) and "host" in h}
    hosts = resolve_targets(targets, ())
    audit = AuditLog(Path(audit_log)) if audit_log else AuditLog()
    opener = FleetOpener(ssh_config=ssh_config, accept_new_host_keys=accept_new, connect_timeout=min(10.0, timeout),
                         audit=audit, sudo=sudo, dry_run=dry_run)
    opener.prepare(hosts)
    approve = prompt_approver(auto_approve=yes)
    done, skipped, failed = [], [], []
    try:
        for spec in hosts:
            status = _one(spec, before.get(spec.name, {}).get(attribute), opener, timeout, approve, path, dry_run)
            {"done": done, "skip": skipped}.get(status, failed).append(spec.name)
    finally:
        opener.close()
    print(f"\n{len(done)} host(s) {'would be ' if dry_run else ''}rolled back{': ' + fold(done) if done else ''}; "
          f"{len(skipped)} unchanged; {len(failed)} not rolled back{': ' + fold(failed) if failed else ''}")
    if done and not dry_run:
        print(f"next: drain and reboot them (Slurm: scontrol reboot ASAP nextstate=RESUME reason=\"kernel rollback\" "
              f"{shlex.quote(fold(done))}), then verify with the gate:")
        print(f"  rocmdoctor sweep {shlex.quote(fold(done))} --baseline {shlex.quote(path)} --gate")
    return int(ExitStatus.CRITICAL if failed else ExitStatus.OK)


def _one(spec: "HostSpec", previous: str | None, opener: "FleetOpener", timeout: float, approve: "Approver",
         baseline: str, dry_run: bool) -> str:
    """Roll one host back; returns done, skip (already there) or fail."""
    from rocmdoctor.errors import RocmdoctorError
    from rocmdoctor.fleet.rollback import boot_probe, kernel_rollback, read_boot_facts

    name = spec.name
    if not previous:
        print(f"{name}: not rolled back: the baseline {baseline} has no kernel for this host", file=sys.stderr)
        return "fail"
    try:
        with opener(spec, timeout) as t:
            root = t.root
            facts = read_boot_facts(t.run(boot_probe(root), timeout=30, mutating=False,
                                          audit_note="rollback: read boot loader").stdout)
            plan = kernel_rollback(name, previous, facts, root=root)
            if plan.plan is None:
                already = facts.running == previous
                print(f"{name}: {'unchanged' if already else 'not rolled back'}: {plan.reason}",
                      file=sys.stdout if already else sys.stderr)
                return "skip" if already else "fail"
            p = plan.plan
            if dry_run:   # the approver shows the plan when it asks; a dry run asks nobody
                print(f"{name}: {p.title}\n  $ {p.command}\n  undo: {p.rollback}")
                t.run(p.command, timeout=p.timeout, mutating=True, sudo=p.sudo, audit_note="rollback (dry run)")
                return "done"
            decision = approve(p, name)
            if not decision.approved:
                print(f"{name}: not rolled back: {decision.reason}", file=sys.stderr)
                return "fail"
            result = t.run(p.command, timeout=p.timeout, mutating=True, sudo=p.sudo,
                           audit_note=f"rollback boot-previous-kernel approved by {decision.by}")
            if result.exit_status != 0:
                tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
                print(f"{name}: rollback failed (exit {result.exit_status}): {tail[0]}", file=sys.stderr)
                return "fail"
            return "done"
    except RocmdoctorError as exc:
        print(f"{name}: not rolled back: {exc.message}", file=sys.stderr)
        return "fail"


def register(app: typer.Typer) -> None:
    app.command("rollback")(rollback)
