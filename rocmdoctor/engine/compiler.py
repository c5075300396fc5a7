"""Compile selected runbooks into an execution plan.

The plan lists every check the runbooks (and their verify steps) need and
every gather those checks read, de-duplicated, so that all read-only
evidence is collected by one probe: one round trip per node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from rocmdoctor.catalog.expressions import evaluate
from rocmdoctor.catalog.loader import Catalog
from rocmdoctor.catalog.definitions import CheckDef, RunbookDef, SignatureDef, resolve_gather
from rocmdoctor.errors import ExpressionError, RocmdoctorError
from rocmdoctor.evidence.probe import GatherSpec, build_probe
from rocmdoctor.engine.signatures import NODE_TEXT_FAMILIES


@dataclass(frozen=True)
class Plan:
    runbooks: tuple[RunbookDef, ...]
    checks: dict[str, CheckDef]
    gathers: tuple[GatherSpec, ...]
    vars: dict[str, Any]
    #: job logs given with --log: read in the same probe, matched against `signatures`
    logs: tuple[str, ...] = ()
    #: the check whose `fingerprint` output describes the node (kernel, ROCm, GPUs...): read in
    #: every probe so a sweep can group failing hosts by what they run (fleet/cohorts.py)
    fingerprint: str | None = None
    signatures: tuple[SignatureDef, ...] = ()
    #: runbooks not asked for, evaluated only when a log's signature routes to them
    #: (their evidence is in the same probe, so routing costs no second round trip)
    standby: tuple[RunbookDef, ...] = ()
    #: gathers only a ticket's bundle answers (`ticket: true` on every check that names them):
    #: read when the plan replays a bundle, never put in a node's probe
    ticket_gathers: tuple[GatherSpec, ...] = ()

    def gathers_from(self, replay: bool) -> list[GatherSpec]:
        """What to collect: the probe's gathers, and from a bundle the ticket-only ones too."""
        return [*self.gathers, *self.ticket_gathers] if replay else list(self.gathers)

    def gathers_for(self, check_ids: Iterable[str]) -> list[GatherSpec]:
        return check_gathers([self.checks[c] for c in check_ids], self.vars)

    def remembers(self) -> bool:
        """True when a check of this plan keeps readings between runs (see CheckDef.remember)."""
        return any(c.remember for c in self.checks.values())

    def parser_ids(self) -> list[str]:
        """The named parsers this plan's gathers use (the ones evaluation will import)."""
        return sorted({g.parse for c in self.checks.values() for g in c.gathers if isinstance(g.parse, str)})

    def probe_script(self, root: str = "", env: dict[str, str] | None = None) -> str:
        return build_probe(self.gathers, root=root, env=env).script


def merged_vars(runbooks: Iterable[RunbookDef], user_vars: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for rb in runbooks:
        for k, v in rb.vars.items():
            out.setdefault(k, v)
    out.update(user_vars)
    return out


def check_gathers(checks: Iterable[CheckDef], vars: dict[str, Any]) -> list[GatherSpec]:
    seen: dict[str, GatherSpec] = {}
    for check in checks:
        if any(vars.get(v) in (None, "") for v in check.requires_vars):
            continue  # not applicable without its variable; reported as skipped
        for g in check.gathers:
            try:
                spec = resolve_gather(g, vars)
            except ExpressionError as exc:
                raise RocmdoctorError(f"{check.path}:{g.line}: gather '{g.name}' of check '{check.id}': {exc}",
                                      "set the variable with --var NAME=VALUE") from None
            prev = seen.get(spec.key)
            if prev is None or spec.timeout > prev.timeout:
                seen[spec.key] = spec
    return list(seen.values())


def ticket_only_keys(checks: Iterable[CheckDef], vars: dict[str, Any]) -> set[str]:
    """Keys every check that gathers them marks `ticket: true`: one check reading the same
    command on a live node puts it back in the probe."""
    flags: dict[str, bool] = {}
    for check in checks:
        if any(vars.get(v) in (None, "") for v in check.requires_vars):
            continue
        for g in check.gathers:
            key = resolve_gather(g, vars).key
            flags[key] = flags.get(key, True) and g.ticket
    return {k for k, only in flags.items() if only}


def log_paths(vars: dict[str, Any]) -> tuple[str, ...]:
    """The texts a run reads for error signatures: the job logs (`logs`, repeatable --log, or the single `log`
    variable) and the ticket's report (--report): an error pasted into an issue form means what it means in a job
    log, as `explain` reads both."""
    logs = vars.get("logs")
    if isinstance(logs, (list, tuple)):
        paths = [str(p) for p in logs if p]
    else:
        paths = [str(vars["log"])] if vars.get("log") else []
    if vars.get("report"):
        paths.append(str(vars["report"]))
    return tuple(dict.fromkeys(paths))


FINGERPRINT_CHECK = "node.fingerprint"


def _ruled_out(when: str | None, vars: dict[str, Any]) -> bool:
    """A step whose condition reads only the run's variables (no other step's result) and is false
    for them cannot run, so its check's evidence is not asked of the node: a gpu-oom triage without a
    job log runs no rocminfo for the release-support step that only a log or ticket opens."""
    if not when or "steps" in when:
        return False
    try:
        return not evaluate(when, {"steps": {}, "vars": vars, "host": ""})
    except ExpressionError:
        return False


def compile_plan(catalog: Catalog, runbook_ids: Iterable[str] = (), user_vars: dict[str, Any] | None = None) -> Plan:
    runbooks = tuple(catalog.select(runbook_ids))
    logs = log_paths(user_vars or {})
    standby = tuple(rb for rb in catalog.runbooks.values() if rb not in runbooks) if logs else ()
    vars = merged_vars((*runbooks, *standby), user_vars or {})
    used: dict[str, CheckDef] = {}
    needed: set[str] = set()  # checks some step may run: their evidence is gathered
    for rb in (*runbooks, *standby):
        for step in rb.steps:
            used[step.check] = catalog.checks[step.check]
            if not _ruled_out(step.when, vars):
                needed.add(step.check)
        for rem in rb.remediations.values():
            if rem.verify:
                used[rem.verify] = catalog.checks[rem.verify]
                needed.add(rem.verify)
    fingerprint = FINGERPRINT_CHECK if FINGERPRINT_CHECK in catalog.checks else None
    if fingerprint:
        used[fingerprint] = catalog.checks[fingerprint]
        needed.add(fingerprint)
    gathered = [c for cid, c in used.items() if cid in needed]
    gathers = check_gathers(gathered, vars)
    ticket_keys = ticket_only_keys(gathered, vars)
    ticket = [g for g in gathers if g.key in ticket_keys]
    gathers = [g for g in gathers if g.key not in ticket_keys]
    keys = {g.key for g in gathers}
    gathers += [g for g in (GatherSpec(kind="tail", target=p) for p in logs) if g.key not in keys]
    # without a job log: the kernel log's and rocminfo's own lines are the text the probe brings
    signatures = catalog.signatures if logs else tuple(s for s in catalog.signatures if s.family in NODE_TEXT_FAMILIES)
    return Plan(runbooks=runbooks, checks=used, gathers=tuple(gathers), vars=vars, logs=logs,
                signatures=signatures, standby=standby, fingerprint=fingerprint, ticket_gathers=tuple(ticket))


PLAN_CACHE_SIZE = 64
#: plans this process already read or compiled, by the same key as the cache file: a long-lived process (the TUI,
#: explain after explain, a test run) skips unpickling the plan again (~25 ms with the whole signature catalogue).
#: A plan is shared the way a sweep shares one across its hosts: nothing changes it after compile_plan.
_IN_PROCESS: dict[str, Plan] = {}


def cached_plan(extra_paths: Iterable[str], runbook_ids: Iterable[str], user_vars: dict[str, Any]) -> Plan:
    """compile_plan over load_catalog, kept in the cache dir per (definition files,
    runbooks, vars): a health check that Slurm or cron runs with the same arguments
    every few minutes then skips filling gather templates (and importing Jinja2) before
    its probe. Any change to a definition file or to rocmdoctor compiles afresh."""
    import hashlib
    import json
    import os
    import pickle

    from rocmdoctor.catalog.loader import catalog_fingerprint, load_catalog
    from rocmdoctor.fileio import keep_newest
    from rocmdoctor.paths import cache_dir

    extra = list(extra_paths)
    ids = list(runbook_ids)
    shape = json.dumps([catalog_fingerprint(extra), ids, user_vars], sort_keys=True, default=str)
    key = hashlib.sha256(shape.encode()).hexdigest()[:32]
    if key in _IN_PROCESS:
        return _IN_PROCESS[key]
    path = cache_dir() / "plans" / f"{key}.pickle"
    try:
        plan = pickle.loads(path.read_bytes())
        if isinstance(plan, Plan):
            return _remember(key, plan)
    except (OSError, pickle.PickleError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        pass
    plan = _remember(key, compile_plan(load_catalog(extra), ids, user_vars))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(plan))
        tmp.replace(path)
        keep_newest(path.parent, PLAN_CACHE_SIZE)
    except OSError:
        pass
    return plan


def _remember(key: str, plan: Plan) -> Plan:
    if len(_IN_PROCESS) >= PLAN_CACHE_SIZE:
        _IN_PROCESS.pop(next(iter(_IN_PROCESS)))
    _IN_PROCESS[key] = plan
    return plan
