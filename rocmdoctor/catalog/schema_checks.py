"""Validation of check and runbook YAML into typed definitions.

Every problem raises one DefinitionError naming file:line, what is wrong and
a hint; unknown keys get a "did you mean" suggestion.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from rocmdoctor.catalog.definitions import (
    CheckDef,
    GatherDef,
    RuleDef,
)
from rocmdoctor.errors import DefinitionError
from rocmdoctor.catalog.expressions import check_syntax
from rocmdoctor.catalog.yaml_lines import LineDict, line_of

ID_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
STATES = ("pass", "warn", "fail", "unknown", "skipped")  # skipped: not applicable here (never a verdict)
GATHER_KEYS = {"file", "glob", "stat", "command", "env"}
GATHER_OPTS = {"parse", "timeout", "optional", "tail", "accept_rc", "stream", "alternative_to", "partial", "ticket"}
CHECK_KEYS = {"id", "title", "description", "gather", "outputs", "rules", "requires_vars", "data", "remember"}
RULE_KEYS = {"when", "state", "message", "evidence"}
RUNBOOK_KEYS = {"id", "title", "summary", "description", "version", "vars", "steps", "diagnoses",
                "remediations", "when_clear"}
STEP_KEYS = {"id", "check", "title", "when"}
DIAG_KEYS = {"id", "step", "when", "cause", "confidence", "evidence_from", "remediations", "follow_up", "settle", "context"}
REM_KEYS = {"id", "title", "command", "risk", "confirm", "sudo", "timeout", "verify", "rollback",
            "approval"}


class _Ctx:
    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, obj: Any, key: str | None, message: str, hint: str = "") -> None:
        raise DefinitionError(self.path, line_of(obj, key), message, hint)

    def mapping(self, obj: Any, what: str, parent: Any = None, key: str | None = None) -> LineDict:
        if not isinstance(obj, dict):
            self.fail(parent if parent is not None else obj, key,
                      f"{what} must be a mapping, got {type(obj).__name__}",
                      "write it as `key: value` lines")
        return obj  # type: ignore[return-value]

    def keys(self, obj: LineDict, allowed: set[str], required: tuple[str, ...], what: str) -> None:
        for k in obj:
            if k not in allowed:
                close = difflib.get_close_matches(k, sorted(allowed), n=1)
                hint = f"did you mean '{close[0]}'?" if close else f"allowed keys: {', '.join(sorted(allowed))}"
                self.fail(obj, k, f"unknown key '{k}' in {what}", hint)
        for k in required:
            if k not in obj or obj[k] in (None, ""):
                self.fail(obj, None, f"{what} is missing required key '{k}'")

    def string(self, obj: LineDict, key: str, what: str, default: str | None = None) -> str:
        value = obj.get(key, default)
        if value is None:
            return ""
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            self.fail(obj, key, f"'{key}' of {what} must be a string", "quote it")
        return str(value)

    def ident(self, obj: LineDict, key: str, what: str) -> str:
        value = self.string(obj, key, what)
        if not ID_RE.match(value):
            self.fail(obj, key, f"invalid {what} id '{value}'",
                      "use lower-case letters, digits, '.', '-' and '_'")
        return value

    def syntax(self, obj: LineDict, key: str, source: str, kind: str) -> None:
        err = check_syntax(source, kind)
        if err:
            self.fail(obj, key, f"bad expression in '{key}': {err}", f"in: {source}")

    def str_list(self, obj: LineDict, key: str, what: str) -> tuple[str, ...]:
        value = obj.get(key) or []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
            self.fail(obj, key, f"'{key}' of {what} must be a list of strings")
        return tuple(str(v) for v in value)


def parse_checks(data: Any, path: str) -> list[CheckDef]:
    ctx = _Ctx(path)
    if isinstance(data, dict) and "checks" in data:
        data = data["checks"]
    if not isinstance(data, list):
        raise DefinitionError(path, line_of(data, default=1), "a checks file must be a list of checks",
                              "start each check with '- id: ...'")
    return [_check(ctx, item) for item in data]


def _check(ctx: _Ctx, raw: Any) -> CheckDef:
    obj = ctx.mapping(raw, "a check")
    ctx.keys(obj, CHECK_KEYS, ("id", "title", "gather", "rules"), "check")
    cid = ctx.ident(obj, "id", "check")
    what = f"check '{cid}'"
    gathers_raw = ctx.mapping(obj["gather"], f"'gather' of {what}", obj, "gather")
    gathers = tuple(_gather(ctx, name, spec, gathers_raw, what) for name, spec in gathers_raw.items())
    for g in gathers:
        if g.alternative_to is not None and g.alternative_to not in gathers_raw:
            ctx.fail(gathers_raw[g.name], "alternative_to",
                     f"gather '{g.name}' of {what} is an alternative to unknown gather '{g.alternative_to}'",
                     f"name one of: {', '.join(gathers_raw)}")
    outputs: list[tuple[str, str]] = []
    if "outputs" in obj:
        outs = ctx.mapping(obj["outputs"], f"'outputs' of {what}", obj, "outputs")
        for name, expr in outs.items():
            if not isinstance(expr, (str, int, float, bool)):
                ctx.fail(outs, name, f"output '{name}' of {what} must be an expression string")
            ctx.syntax(outs, name, str(expr), "expr")
            outputs.append((name, str(expr)))
    rules_raw = obj["rules"]
    if not isinstance(rules_raw, list) or not rules_raw:
        ctx.fail(obj, "rules", f"'rules' of {what} must be a non-empty list")
    rules = tuple(_rule(ctx, r, what) for r in rules_raw)
    if rules[-1].when is not None:
        ctx.fail(rules_raw[-1], "when", f"the last rule of {what} has a 'when'",
                 "end with a default rule without 'when' so every case has a verdict")
    remember = ctx.str_list(obj, "remember", what)
    for name in remember:
        if name not in dict(outputs):
            ctx.fail(obj, "remember", f"{what} remembers '{name}', which is not one of its outputs",
                     f"name one of: {', '.join(n for n, _ in outputs) or '(no outputs)'}")
    return CheckDef(
        id=cid, title=ctx.string(obj, "title", what), description=ctx.string(obj, "description", what, ""),
        gathers=gathers, rules=rules, outputs=tuple(outputs),
        requires_vars=ctx.str_list(obj, "requires_vars", what), path=ctx.path, line=obj.line,
        data=_data_name(ctx, obj, what), remember=remember,
    )


def _data_name(ctx: _Ctx, obj: LineDict, what: str) -> str:
    """`data: NAME` names a packaged reference file (rocmdoctor/catalog/data/NAME.yaml), seen by rules as
    `data`; `data: [A, B]` several, seen as `data.A` and `data.B` (kept as "A,B")."""
    raw = obj.get("data")
    if isinstance(raw, list):
        names = [str(n) for n in raw]
        for n in names:
            _one_data_name(ctx, obj, what, n)
        return ",".join(names)
    return _one_data_name(ctx, obj, what, ctx.string(obj, "data", what, ""))


def _one_data_name(ctx: _Ctx, obj: LineDict, what: str, name: str) -> str:
    from rocmdoctor.catalog.datafiles import DataFileError, data_names, load_data

    if not name:
        return ""
    if name not in data_names():
        close = difflib.get_close_matches(name, list(data_names()), n=1)
        ctx.fail(obj, "data", f"unknown data file '{name}' in {what}",
                 f"did you mean '{close[0]}'?" if close else f"known: {', '.join(data_names()) or 'none'}")
    try:
        load_data(name)
    except DataFileError as exc:
        ctx.fail(obj, "data", str(exc))
    return name


def _gather(ctx: _Ctx, name: str, raw: Any, parent: LineDict, what: str) -> GatherDef:
    if not re.match(r"^[a-z_][a-z0-9_]*$", name):
        ctx.fail(parent, name, f"gather name '{name}' of {what} must be a lower-case identifier")
    if name in ("ev", "vars", "steps", "host", "data"):
        ctx.fail(parent, name, f"gather name '{name}' of {what} is reserved", "pick another name")
    obj = ctx.mapping(raw, f"gather '{name}'", parent, name)
    kinds = [k for k in obj if k in GATHER_KEYS]
    if len(kinds) != 1:
        ctx.fail(obj, None, f"gather '{name}' of {what} needs exactly one of: {', '.join(sorted(GATHER_KEYS))}")
    ctx.keys(obj, GATHER_KEYS | GATHER_OPTS, (), f"gather '{name}'")
    kind = kinds[0]
    if kind == "command":
        argv = obj["command"]
        if isinstance(argv, str) or not isinstance(argv, list) or not argv:
            ctx.fail(obj, "command", f"'command' of gather '{name}' must be an argv list",
                     "write [amd-smi, list, --json]: no shell, so nothing can be injected")
        target: str | tuple[str, ...] = tuple(str(a) for a in argv)
    else:
        target = ctx.string(obj, kind, f"gather '{name}'")
        if kind != "env" and not target.startswith(("/", "{{")):
            ctx.fail(obj, kind, f"'{kind}' of gather '{name}' must be an absolute path", f"got '{target}'")
        if kind == "env" and not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", target):
            ctx.fail(obj, kind, f"'{target}' is not an environment variable name")
    parse = obj.get("parse")
    if parse is not None:
        _validate_parse(ctx, obj, parse, name)
    timeout = obj.get("timeout", 10)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= 600:
        ctx.fail(obj, "timeout", f"'timeout' of gather '{name}' must be seconds between 0 and 600")
    accept = obj.get("accept_rc", [0])
    if accept == "any":
        accept_rc: tuple[int, ...] | None = None
    elif isinstance(accept, list) and all(isinstance(a, int) for a in accept):
        accept_rc = tuple(accept)
    else:
        ctx.fail(obj, "accept_rc", "'accept_rc' must be a list of exit statuses or 'any'")
    stream = obj.get("stream", "stdout")
    if stream not in ("stdout", "stderr", "both"):
        ctx.fail(obj, "stream", "'stream' must be stdout, stderr or both")
    for flag in ("optional", "tail", "partial", "ticket"):
        if not isinstance(obj.get(flag, False), bool):
            ctx.fail(obj, flag, f"'{flag}' must be true or false")
    return GatherDef(name=name, kind=kind, target=target, parse=parse, timeout=float(timeout),
                     optional=bool(obj.get("optional", False)), tail=bool(obj.get("tail", False)),
                     partial=bool(obj.get("partial", False)), ticket=bool(obj.get("ticket", False)),
                     accept_rc=accept_rc, stream=stream,
                     alternative_to=str(obj["alternative_to"]) if obj.get("alternative_to") else None, line=obj.line)


def _validate_parse(ctx: _Ctx, obj: LineDict, parse: Any, name: str) -> None:
    from rocmdoctor.parsers import get_parser, parser_names

    if isinstance(parse, str):
        if get_parser(parse) is None:
            close = difflib.get_close_matches(parse, list(parser_names()), n=1)
            hint = f"did you mean '{close[0]}'?" if close else "see `rocmdoctor checks parsers`"
            ctx.fail(obj, "parse", f"unknown parser '{parse}' in gather '{name}'", hint)
    elif isinstance(parse, dict) and set(parse) == {"regex"}:
        try:
            re.compile(str(parse["regex"]))
        except re.error as exc:
            ctx.fail(obj, "parse", f"bad regex in gather '{name}': {exc}")
    else:
        ctx.fail(obj, "parse", f"'parse' of gather '{name}' must be a parser name or {{regex: PATTERN}}")


def _rule(ctx: _Ctx, raw: Any, what: str) -> RuleDef:
    obj = ctx.mapping(raw, f"a rule of {what}")
    ctx.keys(obj, RULE_KEYS, ("state", "message"), f"rule of {what}")
    state = ctx.string(obj, "state", what)
    if state not in STATES:
        ctx.fail(obj, "state", f"invalid state '{state}'", f"use one of: {', '.join(STATES)}")
    when = obj.get("when")
    if when is not None:
        when = str(when)
        ctx.syntax(obj, "when", when, "expr")
    message = ctx.string(obj, "message", what)
    ctx.syntax(obj, "message", message, "text")
    evidence = ctx.str_list(obj, "evidence", what)
    for e in evidence:
        ctx.syntax(obj, "evidence", e, "text")
    return RuleDef(state=state, message=message, when=when, evidence=evidence, line=obj.line)
