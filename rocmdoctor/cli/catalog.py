"""`rocmdoctor runbooks ...`, `rocmdoctor checks ...` and `rocmdoctor demo ...`."""

from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer

from rocmdoctor.cli.common import PathOpt, handle_errors, parse_vars

runbooks_app = typer.Typer(help="List, show, validate and compile runbooks.", no_args_is_help=True)
checks_app = typer.Typer(help="List and show checks and parsers.", no_args_is_help=True)
demo_app = typer.Typer(help="Built-in simulated incident nodes (targets demo:NAME).", no_args_is_help=True)




def _catalog(path: Optional[List[str]]):  # type: ignore[no-untyped-def]
    from rocmdoctor.catalog.loader import load_catalog

    return load_catalog(path or ())


@runbooks_app.command("list")
def runbooks_list(path: Optional[List[str]] = PathOpt) -> None:
    """List runbooks.  Example: rocmdoctor runbooks list"""
    with handle_errors():
        for rb in _catalog(path).runbooks.values():
            print(f"{rb.id:28} {rb.title}  ({len(rb.steps)} steps, {len(rb.diagnoses)} diagnoses)")


@runbooks_app.command("show")
def runbooks_show(runbook_id: str, path: Optional[List[str]] = PathOpt) -> None:
    """Show a runbook's steps, diagnoses and remediations.  Example: rocmdoctor runbooks show gpu-oom"""
    with handle_errors():
        cat = _catalog(path)
        (rb,) = cat.select([runbook_id])
        print(f"{rb.id}: {rb.title}\n  {rb.summary}\n  file: {rb.path}\n\nSteps (in evaluation order):")
        for s in rb.steps:
            c = cat.checks[s.check]
            cond = f"   [when {s.when}]" if s.when else ""
            print(f"  - {s.id}: {c.title} ({c.id}){cond}")
        print("\nDiagnoses:")
        for d in rb.diagnoses:
            print(f"  - {d.id} [{d.confidence}] at step {d.step} when {d.when}\n      {d.cause}")
            for r in d.remediations:
                print(f"      fix: {r}")
        print("\nRemediations:")
        for r in rb.remediations.values():
            print(f"  - {r.id} [{r.risk} risk, confirm {r.confirm}{', sudo' if r.sudo else ''}]: {r.title}\n"
                  f"      $ {r.command}\n      verify: {r.verify or '-'}   rollback: {r.rollback or '-'}")


@runbooks_app.command("validate")
def runbooks_validate(paths: List[str] = typer.Argument(None, help="Files or directories; default: the built-in ones.")) -> None:
    """Validate runbook, check and signature files; every error names file:line.  Example: rocmdoctor runbooks validate ./my-runbooks"""
    from rocmdoctor.catalog.loader import builtin_dir, validate_paths

    targets = paths or [str(builtin_dir("checks")), str(builtin_dir("runbooks")), str(builtin_dir("signatures"))]
    errors = validate_paths(targets)
    for e in errors:
        print(f"{e.message}" + (f"  (hint: {e.hint})" if e.hint else ""), file=sys.stderr)
    if errors:
        raise typer.Exit(2)
    print(f"ok: {', '.join(targets)}")


@runbooks_app.command("compile")
def runbooks_compile(
    ids: List[str] = typer.Argument(None, help="Runbook ids; default all."),
    show_probe: bool = typer.Option(False, "--show-probe", help="Print the probe script that gathers all evidence."),
    var: Optional[List[str]] = typer.Option(None, "--var", help="NAME=VALUE"),
    fmt: str = typer.Option("text", "--format", help="text or json"),
    path: Optional[List[str]] = PathOpt,
) -> None:
    """Compile runbooks into an execution plan (one probe per node).  Example: rocmdoctor runbooks compile --show-probe"""
    from rocmdoctor.engine.compiler import compile_plan

    with handle_errors():
        plan = compile_plan(_catalog(path), ids or (), parse_vars(var))
        if show_probe:
            print(plan.probe_script(), end="")
            return
        if fmt == "json":
            print(json.dumps({
                "runbooks": [rb.id for rb in plan.runbooks], "checks": sorted(plan.checks),
                "gathers": [{"key": g.key, "kind": g.kind, "timeout": g.timeout} for g in plan.gathers],
                "round_trips": 1}, indent=2))
            return
        steps = sum(len(rb.steps) for rb in plan.runbooks)
        print(f"{len(plan.runbooks)} runbooks, {steps} steps, {len(plan.checks)} checks, "
              f"{len(plan.gathers)} distinct gathers -> 1 probe (one round trip per node)")
        for rb in plan.runbooks:
            print(f"\n{rb.id}:")
            for s in rb.steps:
                print(f"  {s.id:24} {s.check}" + (f"   when {s.when}" if s.when else ""))
            for r in rb.remediations.values():
                print(f"  remediation {r.id}: $ {r.command}  -> verify {r.verify or '-'}")
        print("\nGathers:")
        for g in plan.gathers:
            print(f"  {g.kind:8} {g.source}")


@checks_app.command("list")
def checks_list(path: Optional[List[str]] = PathOpt) -> None:
    """List checks.  Example: rocmdoctor checks list"""
    with handle_errors():
        for c in _catalog(path).checks.values():
            print(f"{c.id:36} {c.title}")


@checks_app.command("show")
def checks_show(check_id: str, path: Optional[List[str]] = PathOpt) -> None:
    """Show what a check reads and how it judges.  Example: rocmdoctor checks show pci.amd_gpus"""
    from rocmdoctor.catalog.definitions import resolve_gather

    with handle_errors():
        cat = _catalog(path)
        c = cat.checks.get(check_id)
        if c is None:
            from rocmdoctor.errors import RocmdoctorError

            raise RocmdoctorError(f"unknown check '{check_id}'", "list them with `rocmdoctor checks list`")
        print(f"{c.id}: {c.title}\n  {c.description}\n  file: {c.path}:{c.line}\n\nGathers:")
        for g in c.gathers:
            src = resolve_gather(g, {"vars": {}}).source if "{{" not in str(g.target) else str(g.target)
            print(f"  {g.name}: {src}" + (f"  (parse: {g.parse})" if g.parse else "") +
                  ("  [optional]" if g.optional else ""))
        print("\nRules (first match wins):")
        for r in c.rules:
            print(f"  {r.state:7} when {r.when or '(otherwise)'}\n          {r.message}")


@checks_app.command("parsers")
def checks_parsers() -> None:
    """List the parsers a gather can use.  Example: rocmdoctor checks parsers"""
    from rocmdoctor.parsers import parser_names

    for name, doc in parser_names().items():
        print(f"{name:24} {doc}")


@demo_app.command("list")
def demo_list() -> None:
    """List the simulated incident nodes.  Example: rocmdoctor demo list"""
    from rocmdoctor.simnode.demo import demo_names

    for name, desc in demo_names().items():
        print(f"demo:{name:34} {desc}")


def register(app: typer.Typer) -> None:
    app.add_typer(runbooks_app, name="runbooks")
    app.add_typer(checks_app, name="checks")
    app.add_typer(demo_app, name="demo")
