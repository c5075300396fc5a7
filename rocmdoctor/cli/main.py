"""The `rocmdoctor` command line: thin commands over the importable core.

Each command parses its arguments, calls one core function and maps the
result to a monitoring-plugin exit status (0 OK, 1 WARNING, 2 CRITICAL,
3 UNKNOWN). Heavy modules are imported inside the commands that need them.
"""

from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer

from rocmdoctor import __version__
from rocmdoctor.cli.common import AcceptNewOpt, PathOpt, RootfsOpt, RunbookOpt, SSHConfigOpt, VarOpt, handle_errors, out_console, parse_vars

app = typer.Typer(
    name="rocmdoctor",
    help="Incident runbooks and diagnostics for AMD GPU nodes under ROCm.\n\n"
    "Example: rocmdoctor triage demo:amdgpu-not-loaded",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"rocmdoctor {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Incident runbooks and diagnostics for AMD GPU nodes under ROCm."""


@app.command()
def triage(
    target: Optional[str] = typer.Argument(None, help="local, demo:NAME, or an SSH host / ssh_config alias."),
    runbook: Optional[List[str]] = RunbookOpt,
    fmt: str = typer.Option("table", "--format", "-f", help="table or json."),
    fix: bool = typer.Option(False, "--fix", help="Offer each proposed remediation, run it after approval, verify it."),
    yes: bool = typer.Option(False, "--yes", "-y", help="With --fix: approve low and medium risk remediations."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the remediation plan; change nothing on the node."),
    var: Optional[List[str]] = VarOpt,
    expect_gpus: Optional[int] = typer.Option(None, "--expect-gpus", help="GPUs this node should have."),
    log: Optional[List[str]] = typer.Option(None, "--log", help="Job log on the node (repeatable): matched against the error-signature catalogue; a match routes to its runbook. GPU OOM lines are analysed in detail."),
    report: Optional[str] = typer.Option(None, "--report", help="The ticket's own report in the bundle or on the node (an issue form's OS/GPU/ROCm Version fields, collect_env output): the GPU, release, OS and kernel it states stand in where no tool output says them, and the errors it quotes are read as a --log's are. Default in a bundle: /ticket/report.md (read for what it states only)."),
    container: Optional[str] = typer.Option(None, "--container", help="Container to inspect (docker/podman)."),
    pid: Optional[int] = typer.Option(None, "--pid", min=1, help="gpu-slow: read only this process's GPUs, cgroup, CPUs and environment."),
    job: Optional[str] = typer.Option(None, "--job", help="gpu-slow: read only this Slurm job's processes (scontrol listpids)."),
    rootfs: str = RootfsOpt,
    path: Optional[List[str]] = PathOpt,
    ssh_config: Optional[str] = SSHConfigOpt,
    accept_new_host_keys: bool = AcceptNewOpt,
    sudo: bool = typer.Option(False, "--sudo", help="Run the probe and remediations with sudo -n."),
    from_bundle: Optional[str] = typer.Option(None, "--from", help="Triage a captured bundle (.tar.gz) instead of a live node."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show passing evidence and skipped steps."),
    incidents_dir: Optional[str] = typer.Option(None, "--incidents-dir", help="Where the incident journal goes (default $ROCMDOCTOR_INCIDENTS_DIR or $XDG_DATA_HOME/rocmdoctor/incidents)."),
) -> None:
    """Triage a node: run the incident runbooks and print verdicts with evidence.

    Examples:

      rocmdoctor triage demo:amdgpu-not-loaded

      rocmdoctor triage local --runbook gpu-oom --log /var/log/job.err

      rocmdoctor triage node042 --log slurm-1234.out --log slurm-1234.err

      rocmdoctor triage node042 --fix

      rocmdoctor triage node042 --runbook gpu-slow --job 123456

      rocmdoctor triage --from node42.tar.gz
    """
    from rocmdoctor.engine.core import TriageRequest, triage_target

    with handle_errors():
        if fmt not in ("table", "json"):
            from rocmdoctor.errors import RocmdoctorError

            raise RocmdoctorError(f"unknown --format {fmt!r}", "use table or json")
        if (target is None) == (from_bundle is None):
            from rocmdoctor.errors import RocmdoctorError

            raise RocmdoctorError("give a TARGET or --from BUNDLE (one of them)",
                                  "e.g. rocmdoctor triage local, or rocmdoctor triage --from node42.tar.gz")
        if from_bundle and fix:
            from rocmdoctor.errors import RocmdoctorError

            raise RocmdoctorError("--fix cannot run against a bundle", "triage the live node to remediate")
        user_vars = parse_vars(var)
        if job is not None and not job.replace("_", "").replace("+", "").isdigit():
            from rocmdoctor.errors import RocmdoctorError

            raise RocmdoctorError(f"--job {job!r}: not a Slurm job id", "e.g. --job 123456 (array and het jobs: 123_4, 123+1)")
        for name, value in (("expect_gpus", expect_gpus), ("container", container), ("pid", pid), ("job", job),
                            ("report", report)):
            if value is not None:
                user_vars[name] = str(value)
        if log:
            user_vars["log"] = log[0]  # the OOM and DKMS-console checks read the first log
            if len(log) > 1:
                user_vars["logs"] = list(dict.fromkeys(log))
        request = TriageRequest(
            target=target or "", runbooks=tuple(runbook or ()), vars=user_vars, fix=fix, yes=yes,
            dry_run=dry_run, rootfs=rootfs, paths=tuple(path or ()), ssh_config=ssh_config,
            accept_new_host_keys=accept_new_host_keys, sudo=sudo, bundle=from_bundle,
        )
        from rocmdoctor.incident.journal import incident_for_request, incident_footer

        with incident_for_request(request, base=incidents_dir) as journal:
            report = triage_target(request, interactive_output=fmt == "table", on_event=journal,
                                   preload=("rich.console", "rocmdoctor.cli.render") if fmt == "table" else ())
        if fmt == "json":
            print(json.dumps(report.to_dict(), indent=2))
        else:
            from rocmdoctor.cli.render import print_report

            print_report(out_console(), report, verbose=verbose)
        footer = incident_footer(journal)
        if footer and fmt == "table" and not journal.error:
            print(f"\n{footer}")
        elif footer:
            print(footer, file=sys.stderr)
        raise typer.Exit(int(report.exit_status))


# Which module defines each top-level command. Only the module a call names is
# imported and turned into click commands (building all of them costs ~20 ms on
# every call, which a Slurm health check pays on every node every few minutes).
COMMAND_MODULES = {
    "runbooks": "rocmdoctor.cli.catalog", "checks": "rocmdoctor.cli.catalog", "demo": "rocmdoctor.cli.catalog",
    "sweep": "rocmdoctor.cli.sweep", "rollback": "rocmdoctor.cli.rollback", "validate": "rocmdoctor.cli.validate", "capture": "rocmdoctor.cli.capture", "explain": "rocmdoctor.cli.explain",
    "incidents": "rocmdoctor.cli.incident", "postmortem": "rocmdoctor.cli.incident", "tui": "rocmdoctor.cli.incident",
}


_registered: set[str] = set()


def _register_subcommands(argv: list[str]) -> None:
    import importlib

    command = next((a for a in argv if not a.startswith("-")), None)
    if command == "triage":
        return
    wanted = {COMMAND_MODULES[command]} if command in COMMAND_MODULES else set(COMMAND_MODULES.values())
    for module in dict.fromkeys(COMMAND_MODULES.values()):
        if module not in wanted or module in _registered:
            continue
        _registered.add(module)
        try:
            importlib.import_module(module).register(app)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def full_app() -> typer.Typer:
    """The app with every command registered (for CliRunner tests and docs)."""
    _register_subcommands([])
    return app


def run(argv: list[str]) -> int:
    """Run the CLI; an unexpected error is one line (UNKNOWN, 3), not a traceback,
    unless ROCMDOCTOR_DEBUG=1 asks for it."""
    import os

    try:
        _register_subcommands(argv)
        app(args=argv, prog_name="rocmdoctor", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    except Exception as exc:  # the last line of defence for an on-call engineer at 3 a.m.
        if os.environ.get("ROCMDOCTOR_DEBUG"):
            raise
        print(f"rocmdoctor: internal error: {type(exc).__name__}: {exc}\n"
              "  hint: this is a bug; rerun with ROCMDOCTOR_DEBUG=1 for the traceback and report it",
              file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(sys.argv[1:]))
