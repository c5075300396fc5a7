"""`rocmdoctor incidents ...`, `rocmdoctor postmortem ID` and `rocmdoctor tui TARGET`.

Registered by rocmdoctor.cli.main via `register(app)`. Module-level imports stay
light (typer only): the journal, Jinja2 and Textual load inside the commands,
so `rocmdoctor --help` does not pay for them.
"""

from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer

from rocmdoctor.cli.common import AcceptNewOpt, PathOpt, RootfsOpt, RunbookOpt, SSHConfigOpt, TargetArg, VarOpt, handle_errors, out_console, parse_vars

incidents_app = typer.Typer(help="Incident journals: every triage and TUI session is one.",
                            no_args_is_help=True, rich_markup_mode=None)

_DIR_HELP = "Where incidents are kept (default $ROCMDOCTOR_INCIDENTS_DIR or $XDG_DATA_HOME/rocmdoctor/incidents)."


def _warn_problems(problems: list[str]) -> None:
    for p in problems:
        print(f"rocmdoctor: warning: {p}", file=sys.stderr)


@incidents_app.command("list")
def list_incidents(
    incidents_dir: Optional[str] = typer.Option(None, "--incidents-dir", help=_DIR_HELP),
    fmt: str = typer.Option("table", "--format", "-f", help="table or json."),
) -> None:
    """List incidents, oldest first, with their final state.  Example: rocmdoctor incidents list"""
    from rocmdoctor.incident.journal import incidents_dir as resolve_dir
    from rocmdoctor.incident.journal import load_all
    from rocmdoctor.incident.postmortem_context import build_context

    with handle_errors():
        rows = []
        for contents in load_all(incidents_dir):
            ctx = build_context(contents)
            rows.append({"id": contents.id, "started": contents.header.started, "target": contents.header.target,
                         "hosts": contents.hosts, "user": contents.header.user,
                         "front_end": contents.header.front_end, "state": ctx["final_state"]["value"],
                         "events": len(contents.events), "notes": len(ctx["notes"]),
                         "root_cause": ctx["root_cause"]["cause"] if ctx["root_cause"] else None})
        if fmt == "json":
            print(json.dumps(rows, indent=2))
            return
        if not rows:
            print(f"no incidents in {resolve_dir(incidents_dir)}", file=sys.stderr)
            return
        from rich.table import Table

        from rocmdoctor.incident.postmortem import utc
        from rocmdoctor.cli.render import STYLE
        from rocmdoctor.status import State

        table = Table(box=None, pad_edge=False)
        # ids and times are what people copy: never cut them; the cause folds instead
        table.add_column("ID", no_wrap=True, min_width=20)
        table.add_column("STARTED (UTC)", no_wrap=True, min_width=19)
        table.add_column("TARGET", no_wrap=True, max_width=24, overflow="ellipsis")
        table.add_column("STATE", no_wrap=True, min_width=9)
        table.add_column("VIA", no_wrap=True)
        table.add_column("CAUSE", overflow="fold", ratio=1)
        for r in rows:
            st = State(r["state"])
            table.add_row(r["id"], utc(r["started"]), r["target"], f"[{STYLE[st]}]{st.symbol} {st.value}[/]",
                          r["front_end"], r["root_cause"] or "")
        out_console().print(table)


@incidents_app.command("show")
def show_incident(
    incident_id: str = typer.Argument(..., help="Incident id, a unique prefix of one, or 'latest'."),
    incidents_dir: Optional[str] = typer.Option(None, "--incidents-dir", help=_DIR_HELP),
    fmt: str = typer.Option("table", "--format", "-f", help="table (timeline) or jsonl (the raw events)."),
) -> None:
    """Show an incident's timeline (or its raw JSON Lines events).  Example: rocmdoctor incidents show latest"""
    from rocmdoctor.incident.journal import load_incident
    from rocmdoctor.incident.postmortem import utc
    from rocmdoctor.incident.postmortem_context import build_context

    with handle_errors():
        contents = load_incident(incident_id, incidents_dir)
        _warn_problems(contents.problems)
        if fmt == "jsonl":
            print(json.dumps(contents.header.to_dict()))
            for e in contents.events:
                print(json.dumps(e.to_dict(), ensure_ascii=False))
            return
        from rich.markup import escape

        ctx = build_context(contents)
        inc = ctx["incident"]
        console = out_console()
        console.print(f"[bold]incident {inc['id']}[/]  {escape(', '.join(inc['hosts']))}  "
                      f"{ctx['final_state']['symbol']} {ctx['final_state']['label']}")
        console.print(f"[dim]opened by {escape(inc['user'])} via {escape(inc['command'] or inc['front_end'])}, "
                      f"{utc(inc['started'])} to {utc(inc['ended'])} UTC ({inc['duration']})[/]")
        for t in ctx["timeline"]:
            console.print(f"  {utc(t['time'])}  {escape(t['host'])}  {escape(t['text'])}")
        console.print(f"[dim]journal: {contents.path}[/]")
        console.print(f"postmortem draft: rocmdoctor postmortem {inc['id']}")


@incidents_app.command("note")
def add_note(
    incident_id: str = typer.Argument(..., help="Incident id, a unique prefix of one, or 'latest'."),
    text: str = typer.Argument(..., help="The note, as it should appear in the timeline."),
    incidents_dir: Optional[str] = typer.Option(None, "--incidents-dir", help=_DIR_HELP),
) -> None:
    """Add a note to an incident's timeline (e.g. what users reported).  Example: rocmdoctor incidents note latest 'users saw NaNs since 02:10'"""
    from rocmdoctor.errors import RocmdoctorError
    from rocmdoctor.incident.journal import reopen_incident

    with handle_errors():
        if not text.strip():
            raise RocmdoctorError("the note is empty", 'pass the text: rocmdoctor incidents note ID "what you saw"')
        with reopen_incident(incident_id, incidents_dir) as journal:
            journal.note(text.strip(), host=journal.header.target)
        if journal.error:
            raise RocmdoctorError(f"note not saved: {journal.error}", "check the incidents directory")
        print(f"note added to incident {journal.id}")


def postmortem(
    incident_id: str = typer.Argument(..., help="Incident id, a unique prefix of one, or 'latest'."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write to FILE instead of stdout."),
    template: Optional[str] = typer.Option(None, "--template", help="A site Jinja2 Markdown template."),
    incidents_dir: Optional[str] = typer.Option(None, "--incidents-dir", help=_DIR_HELP),
) -> None:
    """Render a postmortem draft (Markdown) from an incident's journal.

    Example: rocmdoctor postmortem latest -o postmortem.md
    """
    from rocmdoctor.incident.journal import load_incident
    from rocmdoctor.incident.postmortem import render_postmortem, write_postmortem

    with handle_errors():
        contents = load_incident(incident_id, incidents_dir)
        _warn_problems(contents.problems)
        if output:
            path = write_postmortem(contents, output, template)
            print(f"postmortem draft written to {path}", file=sys.stderr)
        else:
            sys.stdout.write(render_postmortem(contents, template))


def tui(
    target: str = TargetArg,
    runbook: Optional[List[str]] = RunbookOpt,
    var: Optional[List[str]] = VarOpt,
    expect_gpus: Optional[int] = typer.Option(None, "--expect-gpus", help="GPUs this node should have."),
    rootfs: str = RootfsOpt,
    path: Optional[List[str]] = PathOpt,
    ssh_config: Optional[str] = SSHConfigOpt,
    accept_new_host_keys: bool = AcceptNewOpt,
    sudo: bool = typer.Option(False, "--sudo", help="Run the probe and remediations with sudo -n."),
    incidents_dir: Optional[str] = typer.Option(None, "--incidents-dir", help=_DIR_HELP),
) -> None:
    """Watch a triage live, fix with confirmation, take notes, write the postmortem; or, for a hostlist or
    @inventory, watch a sweep as a host table with its cohorts (Enter: a host's tree, d: drain a cohort).

    Examples: rocmdoctor tui demo:amdgpu-not-loaded      rocmdoctor tui 'gpu[001-168]'
    """
    from rocmdoctor.engine.core import TriageRequest

    with handle_errors():
        user_vars = parse_vars(var)
        if expect_gpus is not None:
            user_vars["expect_gpus"] = str(expect_gpus)
        if _is_fleet(target):
            from rocmdoctor.cli.fleet_tui import run_fleet_tui

            run_fleet_tui(target, tuple(runbook or ()), user_vars, tuple(path or ()), ssh_config,
                          accept_new_host_keys, sudo, incidents_dir)
            return
        request = TriageRequest(target=target, runbooks=tuple(runbook or ()), vars=user_vars, rootfs=rootfs,
                                paths=tuple(path or ()), ssh_config=ssh_config,
                                accept_new_host_keys=accept_new_host_keys, sudo=sudo)
        from rocmdoctor.tui.app import IncidentApp  # Textual loads only here
        from rocmdoctor.tui.session import IncidentSession

        session = IncidentSession(request, incidents_dir=incidents_dir)  # a bad runbook fails here, in one line
        IncidentApp(session).run()
        from rocmdoctor.incident.journal import incident_footer

        footer = incident_footer(session.journal)
        if footer:
            print(footer, file=sys.stderr)


def _is_fleet(target: str) -> bool:
    """A hostlist expression (`gpu[001-168]`, `a,b`) or an @inventory/@group opens the fleet view."""
    return target.startswith("@") or "[" in target or "," in target   # `demo:a,demo:b` too


def register(app: typer.Typer) -> None:
    app.add_typer(incidents_app, name="incidents")
    app.command("postmortem")(postmortem)
    app.command("tui")(tui)
