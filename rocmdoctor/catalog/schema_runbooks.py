"""Validation of runbook YAML: steps, branching, diagnoses, remediations.

Cross-references (checks that exist, steps named in expressions, cycles)
are checked here too, so a runbook that loads is a runbook that can run.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rocmdoctor.catalog.definitions import CheckDef, DiagnosisDef, RemediationDef, RunbookDef, StepDef
from rocmdoctor.errors import DefinitionError
from rocmdoctor.catalog.expressions import step_references
from rocmdoctor.catalog.schema_checks import (
    DIAG_KEYS,
    REM_KEYS,
    RUNBOOK_KEYS,
    STEP_KEYS,
    _Ctx,
)
from rocmdoctor.catalog.yaml_lines import line_of

RISKS = ("low", "medium", "high")
CONFIDENCES = ("high", "medium", "low")


def parse_runbook(data: Any, path: str, checks: dict[str, CheckDef]) -> RunbookDef:
    ctx = _Ctx(path)
    obj = ctx.mapping(data, "a runbook")
    ctx.keys(obj, RUNBOOK_KEYS, ("id", "title", "steps"), "runbook")
    rid = ctx.ident(obj, "id", "runbook")
    what = f"runbook '{rid}'"
    vars_raw = obj.get("vars") or {}
    vars_ = dict(ctx.mapping(vars_raw, f"'vars' of {what}", obj, "vars"))

    steps_raw = obj["steps"]
    if not isinstance(steps_raw, list) or not steps_raw:
        ctx.fail(obj, "steps", f"'steps' of {what} must be a non-empty list")
    steps: list[StepDef] = []
    for raw in steps_raw:
        s = ctx.mapping(raw, f"a step of {what}")
        ctx.keys(s, STEP_KEYS, ("id", "check"), f"step of {what}")
        sid = ctx.ident(s, "id", "step")
        if any(x.id == sid for x in steps):
            ctx.fail(s, "id", f"duplicate step id '{sid}' in {what}")
        check = ctx.string(s, "check", "step")
        if check not in checks:
            _unknown_ref(ctx, s, "check", check, list(checks), "check")
        when = s.get("when")
        if when is not None:
            when = str(when)
            ctx.syntax(s, "when", when, "expr")
        steps.append(StepDef(id=sid, check=check, title=ctx.string(s, "title", "step", ""), when=when, line=s.line))
    ordered = _order_steps(ctx, steps, steps_raw, what)

    remediations: dict[str, RemediationDef] = {}
    for raw in obj.get("remediations") or []:
        rem = _remediation(ctx, raw, what, checks)
        if rem.id in remediations:
            ctx.fail(raw, "id", f"duplicate remediation id '{rem.id}' in {what}")
        remediations[rem.id] = rem

    step_ids = [s.id for s in steps]
    diagnoses: list[DiagnosisDef] = []
    for raw in obj.get("diagnoses") or []:
        d = ctx.mapping(raw, f"a diagnosis of {what}")
        ctx.keys(d, DIAG_KEYS, ("id", "step", "when", "cause"), f"diagnosis of {what}")
        did = ctx.ident(d, "id", "diagnosis")
        step = ctx.string(d, "step", "diagnosis")
        if step not in step_ids:
            _unknown_ref(ctx, d, "step", step, step_ids, "step")
        when = str(d["when"])
        ctx.syntax(d, "when", when, "expr")
        _check_refs(ctx, d, "when", when, step_ids)
        cause = ctx.string(d, "cause", "diagnosis")
        ctx.syntax(d, "cause", cause, "text")
        confidence = ctx.string(d, "confidence", "diagnosis", "medium")
        if confidence not in CONFIDENCES:
            ctx.fail(d, "confidence", f"invalid confidence '{confidence}'", f"use one of: {', '.join(CONFIDENCES)}")
        evidence_from = ctx.str_list(d, "evidence_from", "diagnosis") or (step,)
        for ref in evidence_from:
            if ref not in step_ids:
                _unknown_ref(ctx, d, "evidence_from", ref, step_ids, "step")
        follow_up = ctx.str_list(d, "follow_up", "diagnosis")
        for f in follow_up:
            ctx.syntax(d, "follow_up", f, "text")
        rems = ctx.str_list(d, "remediations", "diagnosis")
        for ref in rems:
            if ref not in remediations:
                _unknown_ref(ctx, d, "remediations", ref, list(remediations), "remediation")
        context = d.get("context", False)
        if not isinstance(context, bool):
            ctx.fail(d, "context", f"'context' of a diagnosis of {what} must be true or false")
        diagnoses.append(DiagnosisDef(
            id=did, step=step, when=when, cause=cause, confidence=confidence,
            evidence_from=evidence_from, remediations=rems,
            follow_up=follow_up, settle=ctx.string(d, "settle", "diagnosis", ""), context=context, line=d.line))

    return RunbookDef(
        id=rid, title=ctx.string(obj, "title", what), summary=ctx.string(obj, "summary", what, ""),
        steps=tuple(ordered), diagnoses=tuple(diagnoses), remediations=remediations, vars=vars_,
        version=ctx.string(obj, "version", what, "1"), path=path, line=obj.line,
        when_clear=tuple(ctx.str_list(obj, "when_clear", what)),
    )


def _unknown_ref(ctx: _Ctx, obj: Any, key: str, value: str, known: list[str], what: str) -> None:
    import difflib

    close = difflib.get_close_matches(value, known, n=1)
    hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(sorted(known)[:8]) or 'none'}"
    ctx.fail(obj, key, f"unknown {what} '{value}'", hint)


def _check_refs(ctx: _Ctx, obj: Any, key: str, source: str, step_ids: list[str]) -> set[str]:
    refs = step_references(source)
    for ref in refs:
        if ref not in step_ids:
            _unknown_ref(ctx, obj, key, ref, step_ids, "step")
    return refs


def _order_steps(ctx: _Ctx, steps: list[StepDef], raw: list[Any], what: str) -> list[StepDef]:
    """Dependency order (Kahn), keeping file order among independent steps."""
    ids = [s.id for s in steps]
    deps = {}
    for s, r in zip(steps, raw):
        deps[s.id] = _check_refs(ctx, r, "when", s.when, ids) if s.when else set()
        if s.id in deps[s.id]:
            ctx.fail(r, "when", f"step '{s.id}' of {what} depends on itself")
    ordered: list[StepDef] = []
    done: set[str] = set()
    while len(ordered) < len(steps):
        ready = [s for s in steps if s.id not in done and deps[s.id] <= done]
        if not ready:
            stuck = [s for s in steps if s.id not in done]
            cycle = " -> ".join(s.id for s in stuck)
            raise DefinitionError(ctx.path, stuck[0].line, f"cycle between steps of {what}: {cycle}",
                                  "a step's `when` may only name steps that do not depend on it")
        ordered.append(ready[0])
        done.add(ready[0].id)
    return [replace(s, gates=frozenset(deps[s.id])) for s in ordered]


def _remediation(ctx: _Ctx, raw: Any, what: str, checks: dict[str, CheckDef]) -> RemediationDef:
    r = ctx.mapping(raw, f"a remediation of {what}")
    ctx.keys(r, REM_KEYS, ("id", "title", "command"), f"remediation of {what}")
    rid = ctx.ident(r, "id", "remediation")
    command = ctx.string(r, "command", "remediation")
    ctx.syntax(r, "command", command, "shell")
    risk = ctx.string(r, "risk", "remediation", "medium")
    if risk not in RISKS:
        ctx.fail(r, "risk", f"invalid risk '{risk}'", f"use one of: {', '.join(RISKS)}")
    if r.get("confirm") is True:  # YAML 1.1 reads an unquoted `yes` as true
        r["confirm"] = "yes"
    confirm = ctx.string(r, "confirm", "remediation", "typed" if risk == "high" else "yes")
    if confirm not in ("yes", "typed"):
        ctx.fail(r, "confirm", f"invalid confirm '{confirm}'", "use 'yes' (a y/N prompt) or 'typed' (type the host name)")
    if risk == "high":
        confirm = "typed"
    if "approval" in r and r["approval"] is not True and r["approval"] != "required":
        ctx.fail(r, "approval", "remediations always need approval",
                 "remove 'approval'; use risk: low to let --yes approve it")
    verify = r.get("verify")
    if verify is not None and str(verify) not in checks:
        _unknown_ref(ctx, r, "verify", str(verify), list(checks), "check")
    timeout = r.get("timeout", 120)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= 3600:
        ctx.fail(r, "timeout", "'timeout' of a remediation must be seconds between 0 and 3600")
    sudo = r.get("sudo", False)
    if not isinstance(sudo, bool):
        ctx.fail(r, "sudo", "'sudo' must be true or false")
    rollback = ctx.string(r, "rollback", "remediation", "")
    if rollback:
        ctx.syntax(r, "rollback", rollback, "shell")
    return RemediationDef(id=rid, title=ctx.string(r, "title", "remediation"), command=command, risk=risk,
                          confirm=confirm, sudo=sudo, timeout=float(timeout),
                          verify=str(verify) if verify is not None else None, rollback=rollback,
                          line=line_of(r))
