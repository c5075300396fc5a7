"""`rocmdoctor validate HOST --level 1|2|3`: AMD's ROCm Validation Suite at a level, judged (engine/validate.py)."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from rocmdoctor.cli.common import AcceptNewOpt, SSHConfigOpt


def validate(
    target: str = typer.Argument(..., help="local, demo:NAME, or an SSH host / ssh_config alias."),
    level: int = typer.Option(1, "--level", "-l", min=1, max=3, help="1 (minutes: bandwidth, HBM basic), 2 (GEMM with targets), 3 (burn-in)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would run and for how long; run nothing on the GPUs."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve the run without asking (it loads every GPU)."),
    force: Optional[str] = typer.Option(None, "--force", help="REASON: run although processes hold a GPU (recorded in the audit log)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table or json."),
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
    """
    from rocmdoctor.cli.common import handle_errors
    from rocmdoctor.errors import RocmdoctorError

    with handle_errors():
        if fmt not in ("table", "json"):
            raise RocmdoctorError(f"unknown --format {fmt!r}", "use table or json")
        if force is not None and not force.strip():
            raise RocmdoctorError("--force needs a reason", "e.g. --force 'RMA evidence, job 4242 agreed'")
        from rocmdoctor.engine.targets import TargetOptions, open_target
        from rocmdoctor.engine.terminal_approver import prompt_approver
        from rocmdoctor.engine.validate import LEVELS, run_validate

        opts = TargetOptions(dry_run=dry_run, sudo=sudo, ssh_config=ssh_config,
                             accept_new_host_keys=accept_new_host_keys, audit_log=audit_log)
        import shlex

        from rocmdoctor.incident.journal import incident_footer, open_incident

        argv = ["rocmdoctor", "validate", target, f"--level={level}", *(["--dry-run"] if dry_run else []),
                *([f"--force={force}"] if force else [])]
        with open_incident(target, front_end="validate", command=shlex.join(argv), base=incidents_dir) as journal:
            with open_target(target, opts) as t:
                result = run_validate(t, level, prompt_approver(auto_approve=yes), force=(force or "").strip(),
                                      on_event=journal)
        if fmt == "json":
            print(json.dumps(result.to_dict(), indent=2))
        else:
            lv = LEVELS[level]
            print(f"{result.host}  validate level {level} (RVS level {lv.rvs_level}, {lv.about})  "
                  f"{result.state.symbol} {result.state.value.upper()}")
            print(f"  {result.message}")
            for line in result.evidence:
                print(f"    └ {line}")
            if result.state.value == "skipped":
                print(f"  runs: {lv.runs}")
            footer = incident_footer(journal)
            if footer:
                print(f"\n{footer}")
    raise typer.Exit(int(result.exit_status) if result.state.value != "skipped" else 0)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
