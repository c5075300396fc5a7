"""Judge evidence: checks -> CheckResult, runbooks -> steps and diagnoses.

Pure functions over Evidence: no I/O here, so a live node, an SSH host and a
replayed bundle give the same verdicts for the same evidence.
"""

from __future__ import annotations

from typing import Any, Callable

from rocmdoctor.catalog.definitions import CheckDef, GatherDef, RunbookDef, resolve_gather
from rocmdoctor.catalog.expressions import ExpressionError, evaluate, render_shell, render_text
from rocmdoctor.catalog.status_codes import with_codes
from rocmdoctor.parsers import ParseError, get_parser, parse_memoized, regex_parser
from rocmdoctor.results import CheckResult, Diagnosis, Evidence, RemediationPlan, StepResult
from rocmdoctor.status import State


class _Unknown(Exception):
    def __init__(self, reason: str, sources: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.sources = sources


def _error_line(text: str) -> str | None:
    """The line of a failed command's output that says why: the first, except for a Python
    tool (amd-smi, rocm-smi) that died with a traceback, whose last line names the exception."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    return lines[-1] if lines[0].startswith("Traceback (most recent call last)") else lines[0]


def _parse(g: GatherDef, ev: Evidence) -> Any:
    value = ev.value
    if g.kind == "command":
        rc = value["rc"]
        if g.accept_rc is not None and rc not in g.accept_rc:
            why = _error_line(value["stderr"]) or _error_line(value["stdout"])
            raise _Unknown(f"`{ev.source}` exited {rc}" + (f": {why[:200]}" if why else ""), (ev.source,))
        text = {"stdout": value["stdout"], "stderr": value["stderr"],
                "both": value["stdout"] + value["stderr"]}[g.stream]
        if g.parse is None:
            return value
        if not text.strip() and rc != 0:
            return None
        return _apply_parser(g, text, ev)
    if g.parse is None:
        return value
    if g.kind in ("glob", "stat"):
        return {path: _apply_parser(g, text, ev) for path, text in value.items()}
    return _apply_parser(g, value, ev)


def _apply_parser(g: GatherDef, text: Any, ev: Evidence) -> Any:
    if isinstance(g.parse, dict):
        key = "regex:" + str(g.parse["regex"])
        fn: Callable[[str], Any] | None = regex_parser(str(g.parse["regex"]))
    else:
        key = str(g.parse)
        fn = get_parser(key)
    assert fn is not None  # validated at load
    try:
        return parse_memoized(key, fn, text)
    except ParseError as exc:
        raise _Unknown(f"could not parse `{ev.source}`: {exc}", (ev.source,)) from None


def _alternative_available(check: CheckDef, g: GatherDef, evidence: dict[str, Evidence],
                           vars: dict[str, Any]) -> bool:
    """True when a gather declared as this one's alternative (either way round) was collected."""
    names = {g.alternative_to} | {o.name for o in check.gathers if o.alternative_to == g.name}
    for other in check.gathers:
        if other.name in names:
            ev = evidence.get(resolve_gather(other, vars).key)
            if ev is not None and ev.status == "ok":
                return True
    return False


def evaluate_check(check: CheckDef, evidence: dict[str, Evidence], vars: dict[str, Any],
                   previous: dict[str, Any] | None = None) -> CheckResult:
    """Gathers -> parsed values -> outputs -> first matching rule.

    `previous`: what this check remembered on this host last time (its `remember`
    outputs plus `taken`, the time of that reading), or None; expressions see it as
    `previous`."""
    missing_vars = [v for v in check.requires_vars if vars.get(v) in (None, "")]
    if missing_vars:  # its gathers may not even resolve without the variable
        return CheckResult(check.id, check.title, State.SKIPPED,
                           f"not applicable: set --var {missing_vars[0]}=... to run this check", (), {}, ())
    # ticket-only gathers are not default sources: a live node never asks for them, and a check reads the same
    # way from a node and from its capture (rules that use one name it in their own evidence)
    sources = tuple(ev.source for g in check.gathers if (ev := evidence.get(resolve_gather(g, vars).key))
                    and not g.ticket)
    scope: dict[str, Any] = {"vars": vars, "ev": {}, "previous": previous}
    try:
        if check.data:
            scope["data"] = _load_data(check.data)
        for g in check.gathers:
            key = resolve_gather(g, vars).key
            ev = evidence.get(key)
            if ev is None and g.ticket:
                scope[g.name] = None  # a ticket's stand-in, not asked of a live node
                continue
            if ev is None:
                raise _Unknown(f"no evidence for `{key}`")
            scope["ev"][g.name] = ev
            if ev.status == "missing" and g.optional:
                scope[g.name] = None
                continue
            if ev.status == "unavailable" and _alternative_available(check, g, evidence, vars):
                scope[g.name] = None  # e.g. a bundle with dmesg but no journalctl: dmesg stands in
                continue
            if ev.status not in ("ok", "missing") and g.partial:
                scope[g.name] = None  # the rules judge on the rest of the evidence
                continue
            if ev.status != "ok":
                raise _Unknown(ev.reason or f"{ev.source}: {ev.status}", (ev.source,))
            try:
                scope[g.name] = _parse(g, ev)
            except _Unknown:
                if not g.partial:
                    raise
                scope[g.name] = None  # supplementary evidence that exited non-zero or is not its format
                continue
        outputs: dict[str, Any] = {}
        for name, expr in check.outputs:
            outputs[name] = scope[name] = evaluate(expr, scope)
        for rule in check.rules:
            if rule.when is None or evaluate(rule.when, scope):
                message = render_text(rule.message, scope)
                evidence_lines = tuple(line for e in rule.evidence for line in render_text(e, scope).splitlines()
                                       if line.strip()) or sources
                # an output named _x is the check's own working value (the whole kernel log):
                # expressions use it, results (JSON, journal, --format json) do not carry it
                return CheckResult(check.id, check.title, State(rule.state), message, evidence_lines,
                                   _jsonable({k: v for k, v in outputs.items() if not k.startswith("_")}), sources)
    except _Unknown as exc:
        return CheckResult(check.id, check.title, State.UNKNOWN, exc.reason, exc.sources or sources, {}, sources)
    except ExpressionError as exc:
        return CheckResult(check.id, check.title, State.UNKNOWN,
                           f"check {check.id} could not be evaluated: {exc}", sources, {}, sources)
    except Exception as exc:  # noqa: BLE001 - odd node data must never end the triage
        return CheckResult(check.id, check.title, State.UNKNOWN,
                           f"check {check.id} could not be evaluated ({type(exc).__name__}: {exc}); "
                           "the other checks went on", sources, {}, sources)
    return CheckResult(check.id, check.title, State.UNKNOWN, "no rule matched", sources, {}, sources)


def _load_data(name: str) -> Any:
    """One data file as `data`, several ("a,b") as `data.a`, `data.b`."""
    from rocmdoctor.catalog.datafiles import DataFileError, load_data

    try:
        if "," in name:
            return {n: load_data(n) for n in name.split(",")}
        return load_data(name)
    except DataFileError as exc:
        raise _Unknown(f"reference data unavailable: {exc}") from None


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def step_scope(results: dict[str, StepResult]) -> dict[str, Any]:
    return {
        sid: {"state": r.state.value, "outputs": (r.check.outputs if r.check else {}),
              "message": (r.check.message if r.check else r.skipped_because),
              "evidence": list(r.check.evidence) if r.check else []}
        for sid, r in results.items()
    }


def evaluate_runbook(
    runbook: RunbookDef,
    check_result: Callable[[str], CheckResult],
    vars: dict[str, Any],
    host: str,
    on_step: Callable[[StepResult], None] | None = None,
) -> tuple[tuple[StepResult, ...], tuple[Diagnosis, ...]]:
    results: dict[str, StepResult] = {}
    for step in runbook.steps:
        title = step.title or ""
        if step.when:
            scope = {"steps": step_scope(results), "vars": vars, "host": host}
            # A gate over a step whose evidence could not be collected cannot rule this step out:
            # it runs and its own evidence decides (a ticket holds part of a node, an unreadable
            # sysfs). A gate over a skipped step skips this one too.
            undecided = any(results[g].state == State.UNKNOWN for g in step.gates if g in results)
            try:
                run = bool(evaluate(step.when, scope)) or undecided
                why = f"condition not met: {step.when}"
            except ExpressionError as exc:
                run = undecided
                why = f"condition could not be evaluated: {exc}"
            if not run:
                r = StepResult(runbook.id, step.id, title, None, why)
                results[step.id] = r
                if on_step:
                    on_step(r)
                continue
        check = check_result(step.check)
        r = StepResult(runbook.id, step.id, title or check.title, check)
        if check.state == State.SKIPPED:
            r = StepResult(runbook.id, step.id, title or check.title, None, check.message)
        results[step.id] = r
        if on_step:
            on_step(r)
    return tuple(results[s.id] for s in runbook.steps), _diagnose(runbook, results, vars, host)


def _diagnose(runbook: RunbookDef, results: dict[str, StepResult], vars: dict[str, Any],
              host: str) -> tuple[Diagnosis, ...]:
    scope = {"steps": step_scope(results), "vars": vars, "host": host}
    out = []
    for d in runbook.diagnoses:
        try:
            if not evaluate(d.when, scope):
                continue
        except ExpressionError:
            continue  # a diagnosis over evidence we do not have is not made
        try:
            cause = render_text(d.cause, scope)
        except ExpressionError as exc:  # the evidence decided it: say so rather than lose it
            cause = f"{d.id} (its cause text could not be rendered from this evidence: {exc})"
        # a follow-up whose template renders to nothing does not apply to this evidence
        follow_up = tuple(f for f in (_render_or_none(t, scope) for t in d.follow_up) if f and f.strip())
        evidence = tuple(line for sid in d.evidence_from for line in
                         (results[sid].check.evidence if results[sid].check else ()))
        plans = tuple(plan_remediation(runbook, rid, scope) for rid in d.remediations)
        out.append(Diagnosis(runbook.id, d.id, d.step, cause, d.confidence, with_codes(evidence),
                             tuple(p for p in plans if p is not None), follow_up))
    return tuple(out)


def _render_or_none(template: str, scope: dict[str, Any]) -> str | None:
    try:
        return render_text(template, scope)
    except ExpressionError:
        return None


def plan_remediation(runbook: RunbookDef, rid: str, scope: dict[str, Any]) -> RemediationPlan | None:
    rem = runbook.remediations[rid]
    try:
        command = render_shell(rem.command, scope)
        rollback = render_shell(rem.rollback, scope) if rem.rollback else ""
    except ExpressionError:
        return None
    if not command:  # its template found nothing to act on in this evidence (e.g. no hung GPU to reset)
        return None
    return RemediationPlan(runbook.id, rem.id, rem.title, command, rem.risk, rem.confirm, rem.verify,
                           rollback, rem.timeout, rem.sudo)
