"""`rocmdoctor sweep`: fleet sweeps and the per-node scheduled mode.

Imported by the main CLI at start-up, so only typer is imported at module
level; everything else loads inside the command.
"""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from rocmdoctor.cli.common import AcceptNewOpt, PathOpt, RunbookOpt, SSHConfigOpt


def sweep(
    targets: List[str] = typer.Argument(..., help="Hosts, hostlist expressions (node[001-168]), @FILE inventories, or `local`."),
    exclude: Optional[List[str]] = typer.Option(None, "-x", "--exclude", help="Hosts to leave out (hostlist expression or @group; repeatable), as clush -x."),
    fanout: int = typer.Option(64, "--fanout", "-f", min=1, max=1024, help="Hosts in flight at once."),
    timeout: float = typer.Option(60.0, "--timeout", "-t", min=0.5, help="Per-host budget in seconds (connect + probe)."),
    deadline: Optional[float] = typer.Option(None, "--deadline", min=1.0, help="Whole-sweep deadline in seconds; hosts not done by then are UNKNOWN."),
    fmt: str = typer.Option("table", "--format", help="table, json, prometheus or junit."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the output to FILE atomically (temp file + rename)."),
    ssh_config: Optional[str] = SSHConfigOpt,
    accept_new_host_keys: bool = AcceptNewOpt,
    runbook: Optional[List[str]] = RunbookOpt,
    var: Optional[List[str]] = typer.Option(None, "--var", help="Runbook variable NAME=VALUE (repeatable); overrides inventory vars."),
    drain_on: Optional[str] = typer.Option(None, "--drain-on", help="critical or warning: drain such nodes in Slurm (scontrol, as LBNL NHC does)."),
    resume: bool = typer.Option(False, "--resume", help="Resume healthy nodes that rocmdoctor itself drained (reason prefix `rocmdoctor:`)."),
    npd: bool = typer.Option(False, "--npd", help="Kubernetes node-problem-detector plugin mode: exit 0 OK / 1 NonOK / 2 Unknown, one short line on stdout."),
    path: Optional[List[str]] = PathOpt,
    rootfs: str = typer.Option("", "--rootfs", help="For `local`: read /sys, /proc, /dev, /etc under this directory."),
    sudo: bool = typer.Option(False, "--sudo", help="Run the probe with sudo -n."),
    audit_log: Optional[str] = typer.Option(None, "--audit-log", help="Audit log file (default $ROCMDOCTOR_AUDIT_LOG or the state dir)."),
    since: Optional[str] = typer.Option(None, "--since", help="`last`: compare with the previous sweep (newly failing, recovered, fingerprint drift)."),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Compare with the sweep document in FILE (written by --format json -o FILE)."),
    gate: bool = typer.Option(False, "--gate", help="Rollout gate: exit non-zero when a host newly fails or warns, lost a GPU or changed beyond --expect (needs --baseline or --since last)."),
    expect: Optional[List[str]] = typer.Option(None, "--expect", help="With --gate: ATTRIBUTE=VALUE the wave installs, e.g. kernel=6.8.0-45-generic, rocm=6.4.1 (repeatable)."),
) -> None:
    """Sweep many nodes with one compiled plan; exit status = worst state (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).

    Examples:

      rocmdoctor sweep 'node[001-168]' --fanout 64 --timeout 30

      rocmdoctor sweep @gpu -x 'node[005-010]' -x @maintenance

      rocmdoctor sweep @fleet.yaml:mi300x --format prometheus -o /var/lib/node_exporter/textfile/rocmdoctor.prom

      rocmdoctor sweep local --timeout 45 --drain-on critical --resume    (Slurm HealthCheckProgram)

      rocmdoctor sweep 'node[001-016]' --baseline before.json --gate --expect kernel=6.8.0-45-generic   (rollout wave)
    """
    from rocmdoctor.cli.common import handle_errors

    with handle_errors():
        code = _run(targets, fanout, timeout, deadline, fmt, output, ssh_config, accept_new_host_keys,
                    tuple(runbook or ()), var, drain_on, resume, npd, tuple(path or ()), rootfs, sudo, audit_log,
                    since, baseline, tuple(exclude or ()), gate=gate, expect=tuple(expect or ()))
    raise typer.Exit(code)


def _run(targets: List[str], fanout: int, timeout: float, deadline: Optional[float], fmt: str,
         output: Optional[str], ssh_config: Optional[str], accept_new: bool, runbooks: tuple[str, ...],
         var: Optional[List[str]], drain_on: Optional[str], resume: bool, npd: bool, paths: tuple[str, ...],
         rootfs: str, sudo: bool, audit_log: Optional[str], since: Optional[str] = None,
         baseline: Optional[str] = None, exclude: tuple[str, ...] = (), *, gate: bool = False,
         expect: tuple[str, ...] = ()) -> int:
    from pathlib import Path

    from rocmdoctor.transports.audit import AuditLog
    from rocmdoctor.cli.common import parse_vars
    from rocmdoctor.errors import RocmdoctorError
    from rocmdoctor.fleet.inventory import resolve_targets
    from rocmdoctor.fleet.outputs import FORMATS, render, write_output
    from rocmdoctor.fleet.sweep import run_sweep
    from rocmdoctor.fleet.sweep_open import FleetOpener, PlanCache

    if fmt not in FORMATS:
        raise RocmdoctorError(f"unknown --format {fmt!r}", f"use one of: {', '.join(FORMATS)}")
    if drain_on is not None and drain_on not in ("critical", "warning"):
        raise RocmdoctorError(f"--drain-on {drain_on!r}", "use --drain-on critical (FAIL) or --drain-on warning (WARN or FAIL)")
    if ssh_config and not Path(ssh_config).is_file():
        raise RocmdoctorError(f"--ssh-config {ssh_config}: no such ssh config file", "give the path of an OpenSSH client config")
    if since is not None and since != "last":
        raise RocmdoctorError(f"--since {since!r}", "use --since last, or --baseline FILE for a saved sweep")
    from rocmdoctor.fleet.changes import SweepHistory, compare, load_baseline
    from rocmdoctor.fleet.gate import evaluate_gate, parse_expect

    if expect and not gate:
        raise RocmdoctorError("--expect without --gate", "add --gate (with --baseline FILE) to check a rollout wave")
    if gate and not (since or baseline):
        raise RocmdoctorError("--gate needs a baseline", "take a sweep before the upgrade (--format json -o before.json) "
                              "and give --baseline before.json")
    if gate and npd:
        raise RocmdoctorError("--gate with --npd", "the gate is for a rollout pipeline; run it without --npd")
    expectations = parse_expect(expect)

    history = SweepHistory()
    previous = load_baseline("last" if since else baseline, history) if (since or baseline) else None  # type: ignore[arg-type]
    user_vars = parse_vars(var)
    hosts = resolve_targets(targets, exclude)
    plans = PlanCache(None, runbooks, user_vars, paths=paths)
    default_plan = plans.default()  # compile once up front: a bad runbook is one error, not N unknowns
    audit = AuditLog(Path(audit_log)) if audit_log else AuditLog()
    opener = FleetOpener(ssh_config=ssh_config, accept_new_host_keys=accept_new, connect_timeout=min(10.0, timeout),
                         audit=audit, sudo=sudo, rootfs=rootfs)
    progress = _progress(len(hosts)) if sys.stderr.isatty() and not npd and len(hosts) > 1 else None
    try:
        result = run_sweep(hosts, plan_for=plans, opener=opener, fanout=fanout, timeout=timeout, deadline=deadline,
                           runbooks=tuple(rb.id for rb in default_plan.runbooks),
                           on_result=progress.update if progress else None, retries=opener.retries)
    finally:
        if progress:
            progress.close()
        opener.close()
    from dataclasses import replace

    from rocmdoctor.fleet.outputs.json_doc import render_json, sweep_doc

    doc = sweep_doc(result)
    if previous is not None:
        result = replace(result, changes=compare(previous[0], previous[1], doc),
                         gate=evaluate_gate(previous[0], previous[1], doc, expectations) if gate else None)
    history.save(doc)   # every sweep is kept (the newest 50), so the next one can say what changed
    if drain_on or resume:
        _slurm(result, hosts, drain_on, resume, audit)
    if npd:
        from rocmdoctor.fleet.npd import npd_message, npd_status

        print(npd_message(result))
        return npd_status(result)
    write_output(render_json(result, doc) if fmt == "json" else render(fmt, result), output)
    return int(result.exit_status)


def _slurm(result, hosts, drain_on, resume, audit) -> None:  # type: ignore[no-untyped-def]
    from rocmdoctor.fleet.slurm_drain import SlurmDrainer, apply, local_node_name

    by_name = {h.name: h for h in hosts}

    def node_name(host: str) -> str:
        spec = by_name[host]
        if spec.vars.get("slurm_node"):
            return str(spec.vars["slurm_node"])
        return local_node_name() if host == "local" else host

    rows = [(node_name(h.host), h.state, h.message, h.reachable) for h in result.hosts]
    for action in apply(SlurmDrainer(audit=audit), rows, drain_on=drain_on, resume=resume):
        if action.action != "skip" or sys.stderr.isatty():
            print(f"rocmdoctor: slurm {action.action}: {action.message}", file=sys.stderr)


class _Bar:
    """A progress bar on stderr, only when stderr is a terminal (never under cron)."""

    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._p = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                           TimeElapsedColumn(), console=Console(stderr=True, emoji=False), transient=True)
        self._task = self._p.add_task("", total=total)
        self._bad = 0
        self._p.start()

    def update(self, result, done: int, total: int) -> None:  # type: ignore[no-untyped-def]
        if result.state.value in ("fail", "unknown"):
            self._bad += 1
        self._p.update(self._task, completed=done, description=f"{self._bad} fail/unknown")

    def close(self) -> None:
        self._p.stop()


def _progress(total: int) -> _Bar:
    return _Bar(total)


def register(app: typer.Typer) -> None:
    app.command("sweep")(sweep)
