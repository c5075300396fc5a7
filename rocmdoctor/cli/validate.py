"""`rocmdoctor validate HOST --level 1|2|3`: AMD's ROCm Validation Suite at a level, judged (engine/validate.py)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, List, Optional

import typer

if TYPE_CHECKING:
    from rocmdoctor.engine.validate import Level, ValidateResult

from rocmdoctor.cli.common import AcceptNewOpt, SSHConfigOpt


def validate(
    targets: List[str] = typer.Argument(..., help="Hosts: local, demo:NAME, SSH hosts, hostlist expressions, @FILE (as for sweep); one at a time."),
    level: int = typer.Option(1, "--level", "-l", min=1, max=3, help="1 (minutes: bandwidth, HBM basic), 2 (GEMM with targets), 3 (burn-in)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would run and for how long; run nothing on the GPUs."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve the run without asking (it loads every GPU)."),
    force: Optional[str] = typer.Option(None, "--force", help="REASON: run although processes hold a GPU (recorded in the audit log)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, json, prometheus or junit."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the output to FILE atomically (as sweep -o)."),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Compare the figures (GEMM Gflops, link GB/s) with FILE from --save-baseline: under 85 %% WARN, under 50 %% FAIL."),
    save_baseline: Optional[str] = typer.Option(None, "--save-baseline", help="Write this run's figures to FILE (one known-good host of the model)."),
    sudo: bool = typer.Option(False, "--sudo", help="Run with sudo -n."),
    ssh_config: Optional[str] = SSHConfigOpt,
    accept_new_host_keys: bool = AcceptNewOpt,
    audit_log: Optional[str] = typer.Option(None, "--audit-log", help="Audit log file (default $ROCMDOCTOR_AUDIT_LOG or the state dir)."),
    incidents_dir: Optional[str] = typer.Option(None, "--incidents-dir", help="Where the incident journal goes (as for triage)."),
) -> None:
    """Run the ROCm Validation Suite's level on a drained node and judge its results (exit 0 pass, 2 fail, 3 not run).

    Examples:

      rocmdoctor validate node042 --level 1 --dry-run

      rocmdoctor validate node042 --level 2 --yes

      rocmdoctor validate 'gpu[001-016]' --level 1 --yes --format json    (drained nodes, one after the other)

      rocmdoctor validate gpu001 --level 2 --yes --save-baseline mi300x.json; rocmdoctor validate gpu042 --level 2 --baseline mi300x.json
    """
    from pathlib import Path

    from rocmdoctor.cli.common import handle_errors
    from rocmdoctor.errors import RocmdoctorError

    with handle_errors():
        if fmt not in ("table", "json", "prometheus", "junit"):
            raise RocmdoctorError(f"unknown --format {fmt!r}", "use table, json, prometheus or junit")
        if force is not None and not force.strip():
            raise RocmdoctorError("--force needs a reason", "e.g. --force 'RMA evidence, job 4242 agreed'")
        import shlex

        from rocmdoctor.engine.terminal_approver import prompt_approver
        from rocmdoctor.engine.validate import LEVELS, run_validate
        from rocmdoctor.fleet.hostlist import fold
        from rocmdoctor.fleet.inventory import resolve_targets
        from rocmdoctor.fleet.sweep_open import FleetOpener
        from rocmdoctor.incident.journal import incident_footer, open_incident
        from rocmdoctor.status import worst
        from rocmdoctor.transports.audit import AuditLog

        hosts = resolve_targets(targets, ())
        if save_baseline and len(hosts) != 1:
            raise RocmdoctorError(f"--save-baseline records one host's figures; {len(hosts)} hosts given",
                                  "run it on one known-good node of the model, then --baseline FILE for the others")
        from rocmdoctor.engine.validate_figures import load_baseline, save_baseline as write_baseline

        base = (Path(baseline).name, load_baseline(baseline)) if baseline else None
        audit = AuditLog(Path(audit_log)) if audit_log else AuditLog()
        opener = FleetOpener(ssh_config=ssh_config, accept_new_host_keys=accept_new_host_keys, audit=audit,
                             sudo=sudo, dry_run=dry_run)
        opener.prepare(hosts)
        label = fold(h.name for h in hosts)
        argv = ["rocmdoctor", "validate", label, f"--level={level}", *(["--dry-run"] if dry_run else []),
                *([f"--force={force}"] if force else [])]
        approve = prompt_approver(auto_approve=yes)
        results = []
        lv = LEVELS[level]
        try:
            with open_incident(label, front_end="validate", command=shlex.join(argv), base=incidents_dir) as journal:
                for spec in hosts:
                    try:
                        with opener(spec, 60.0) as t:
                            result = run_validate(t, level, approve, force=(force or "").strip(), on_event=journal,
                                              baseline=base)
                    except RocmdoctorError as exc:
                        from rocmdoctor.engine.validate import ValidateResult
                        from rocmdoctor.status import State

                        result = ValidateResult(spec.name, level, State.UNKNOWN, f"not run: {exc.message}")
                    results.append(result)
                    if fmt == "table":
                        _print(result, lv)
        finally:
            opener.close()
        if save_baseline and results and results[0].figures:
            write_baseline(save_baseline, results[0].host, level, results[0].figures)
            if fmt == "table":
                print(f"\nbaseline: {len(results[0].figures)} figure(s) written to {save_baseline}")
        elif save_baseline and not dry_run:
            print(f"\nbaseline: nothing written to {save_baseline}: this run measured no figure "
                  "(TransferBench and hipblaslt-bench missing, or the run did not complete)", file=sys.stderr)
        if fmt != "table":
            from rocmdoctor.fleet.outputs import write_output
            from rocmdoctor.fleet.outputs.validation import render_validate_junit, render_validate_prometheus

            docs = [r.to_dict() for r in results]
            text = (json.dumps(docs[0] if len(docs) == 1 else {"hosts": docs}, indent=2) + "\n" if fmt == "json"
                    else render_validate_prometheus(results) if fmt == "prometheus" else render_validate_junit(results))
            write_output(text, output)
        else:
            if len(results) > 1:
                print(f"\n{len(results)} host(s): " + ", ".join(
                    f"{sum(1 for r in results if r.state == s)} {s.value}"
                    for s in sorted({r.state for r in results}, key=lambda x: -x.severity)))
            footer = incident_footer(journal)
            if footer:
                print(f"\n{footer}")
        state = worst([r.state for r in results if r.state.value != "skipped"])
    from rocmdoctor.status import exit_status_for

    raise typer.Exit(int(exit_status_for(state)))


def _print(result: "ValidateResult", lv: "Level") -> None:
    print(f"{result.host}  validate level {result.level} (RVS level {lv.rvs_level}, {lv.about})  "
          f"{result.state.symbol} {result.state.value.upper()}")
    print(f"  {result.message}")
    for line in result.evidence:
        print(f"    └ {line}")
    if result.state.value == "skipped":
        print(f"  runs: {lv.runs}")


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
