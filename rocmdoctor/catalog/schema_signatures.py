"""Validation of error-signature YAML (signatures/*.yaml) into SignatureDefs.

A signature's pattern runs on text nobody controls (a job log, a pasted ticket),
so a pattern is refused at load time when its shape can backtrack without bound:
a quantifier nested in another (`(a+)+`), a back-reference, or more than two
unbounded repeats. Each pattern must also hold a literal of four or more
characters: lines that lack it are never handed to the regex engine at all.
Every entry names a real occurrence (`source`: the thread's URL) and quotes it
(`example`), and the example must match: a signature that cannot recognise its
own source is a definition error, not a test failure.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.catalog.definitions import ContextReading, ContradictedReading, SignatureDef
from rocmdoctor.catalog.schema_checks import ID_RE, _Ctx
from rocmdoctor.catalog.status_codes import code_names
from rocmdoctor.catalog.yaml_lines import LineDict, line_of
from rocmdoctor.errors import DefinitionError

try:  # Python 3.11+
    import re._parser as _sre  # type: ignore[import-not-found]
    import re._constants as _sc  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sc  # type: ignore[no-redef]
    import sre_parse as _sre  # type: ignore[no-redef]

SIG_KEYS = {"id", "family", "pattern", "means", "runbook", "diagnosis", "confidence", "severity",
            "fallback", "confirm", "source", "example", "context", "when",
            "cause_of", "leaves_open"}
CONTEXT_KEYS = {"line", "diagnosis", "means", "runbook", "confidence", "severity", "commands", "source", "within",
                "example"}
CONFIRM_KEYS = {"check", "commands", "contradicted"}
CONTRADICTED_KEYS = {"diagnosis", "means", "confidence", "severity", "commands", "source", "check", "outputs",
                     "states", "present"}
CHECK_STATES = ("pass", "warn", "fail", "unknown")
CONFIDENCES = ("high", "medium", "low")
SEVERITIES = ("critical", "warning")
MAX_UNBOUNDED = 2
MIN_ANCHOR = 4
_REPEATS = {_sc.MAX_REPEAT, _sc.MIN_REPEAT} | ({_sc.POSSESSIVE_REPEAT} if hasattr(_sc, "POSSESSIVE_REPEAT") else set())
_BACKREFS = {_sc.GROUPREF, _sc.GROUPREF_EXISTS} | ({_sc.GROUPREF_IGNORE} if hasattr(_sc, "GROUPREF_IGNORE") else set())


def is_signatures_doc(data: object) -> bool:
    return isinstance(data, dict) and "signatures" in data and "steps" not in data


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` may not run on untrusted text, or None when it may."""
    try:
        parsed = _sre.parse(pattern)
    except re.error as exc:
        return f"not a regular expression: {exc}"
    unbounded = 0

    def walk(items: Any, in_repeat: bool) -> str | None:
        nonlocal unbounded
        for op, av in items:
            if op in _BACKREFS:
                return "back-references are not allowed (they defeat linear matching)"
            if op in _REPEATS:
                lo, hi, sub = av
                if hi == _sc.MAXREPEAT:
                    unbounded += 1
                if in_repeat and hi > 1:
                    return "a quantifier inside another quantifier can backtrack without bound"
                err = walk(sub, in_repeat or hi > 1)
            elif op is _sc.SUBPATTERN:
                err = walk(av[-1], in_repeat)
            elif op is _sc.BRANCH:
                err = next((e for b in av[1] if (e := walk(b, in_repeat))), None)
            elif op in (_sc.ASSERT, _sc.ASSERT_NOT):
                err = walk(av[1], in_repeat)
            elif getattr(_sc, "ATOMIC_GROUP", None) is op:
                err = walk(av, in_repeat)
            else:
                err = None
            if err:
                return err
        return None

    err = walk(parsed, False)
    if err:
        return err
    if unbounded > MAX_UNBOUNDED:
        return f"{unbounded} unbounded repeats (at most {MAX_UNBOUNDED}); bound them, e.g. .{{0,200}}"
    return None


def pattern_anchors(pattern: str) -> tuple[str, ...]:
    """Literal runs every match must contain (top level and mandatory groups)."""
    runs: list[str] = []

    def walk(items: Any) -> None:
        current: list[str] = []
        for op, av in items:
            if op is _sc.LITERAL:
                current.append(chr(av))
                continue
            if current:
                runs.append("".join(current))
                current = []
            if op is _sc.SUBPATTERN:
                walk(av[-1])
        if current:
            runs.append("".join(current))

    walk(_sre.parse(pattern))
    return tuple(sorted({r for r in runs if len(r) >= 3}, key=len, reverse=True))


def parse_signatures(data: Any, path: str, runbooks: dict[str, Any] | None = None,
                     checks: dict[str, Any] | None = None) -> list[SignatureDef]:
    ctx = _Ctx(path)
    if not is_signatures_doc(data):
        raise DefinitionError(path, line_of(data, None) if isinstance(data, dict) else 1,
                              "a signatures file is a mapping with a 'signatures:' list")
    items = data["signatures"]
    if not isinstance(items, list) or not items:
        ctx.fail(data, "signatures", "'signatures' must be a non-empty list")
    out: list[SignatureDef] = []
    seen: dict[str, int | None] = {}
    for raw in items:
        sig = _signature(ctx, raw, data, runbooks, checks)
        if sig.id in seen:
            ctx.fail(raw, "id", f"signature '{sig.id}' is defined twice (first at line {seen[sig.id]})")
        seen[sig.id] = sig.line
        out.append(sig)
    return out


def _strings(ctx: _Ctx, obj: LineDict, key: str, what: str) -> tuple[str, ...]:
    """A string or a list of non-empty strings (required keys are enforced by `ctx.keys`)."""
    values = ctx.str_list(obj, key, what)
    if any(not v.strip() for v in values):
        ctx.fail(obj, key, f"'{key}' of {what} must be a string or a list of non-empty strings")
    return values


def _urls(ctx: _Ctx, obj: LineDict, what: str) -> tuple[str, ...]:
    """`source`: the URLs of real occurrences."""
    sources = _strings(ctx, obj, "source", what)
    for s in sources:
        if not re.match(r"https?://\S+$", s):
            ctx.fail(obj, "source", f"source of {what} must be the URL of a real occurrence", f"got: {s}")
    return sources


def _confidence(ctx: _Ctx, obj: LineDict, what: str) -> str:
    confidence = ctx.string(obj, "confidence", what, "medium")
    if confidence not in CONFIDENCES:
        ctx.fail(obj, "confidence", f"confidence of {what} must be one of {', '.join(CONFIDENCES)}")
    return confidence


def _means(ctx: _Ctx, obj: LineDict, what: str) -> str:
    """The sentence shown, on one line (YAML's folded text keeps no layout worth keeping)."""
    return " ".join(ctx.string(obj, "means", what).split())


def _signature(ctx: _Ctx, raw: Any, parent: Any, runbooks: dict[str, Any] | None,
               checks: dict[str, Any] | None) -> SignatureDef:
    obj = ctx.mapping(raw, "a signature", parent, "signatures")
    ctx.keys(obj, SIG_KEYS, ("id", "family", "pattern", "means", "runbook", "diagnosis", "source", "example"),
             "signature")
    sid = ctx.ident(obj, "id", "signature")
    what = f"signature '{sid}'"
    patterns = _strings(ctx, obj, "pattern", what)
    anchors, folds = [], []
    for p in patterns:
        problem = pattern_problem(p)
        if problem:
            ctx.fail(obj, "pattern", f"pattern of {what} refused: {problem}", f"in: {p}")
        fold = bool(re.compile(p).flags & re.IGNORECASE)
        lits = pattern_anchors(p)
        if not lits or len(lits[0]) < MIN_ANCHOR:
            ctx.fail(obj, "pattern", f"pattern of {what} has no literal of {MIN_ANCHOR}+ characters",
                     "a signature must contain fixed text (a word of the message) outside optional parts")
        anchors.append(tuple(a.lower() for a in lits) if fold else lits)
        folds.append(fold)
    sources = _urls(ctx, obj, what)
    examples = _strings(ctx, obj, "example", what)
    compiled = [re.compile(p) for p in patterns]
    for ex in examples:
        # as a scan reads it: with the symbols of the status codes the line writes as numbers or messages
        read = " ".join((ex, *code_names(ex)))
        if not any(c.search(read) for c in compiled):
            ctx.fail(obj, "example", f"example of {what} does not match its pattern",
                     f"example: {ex[:160]}")
    when = ctx.string(obj, "when", what, "")
    if when:
        ctx.syntax(obj, "when", when, "expr")
        for ex in examples:
            if not _holds(when, compiled, ex):
                ctx.fail(obj, "when", f"an example of {what} matches its pattern but not its 'when'",
                         f"example: {ex[:160]}")
    confidence = _confidence(ctx, obj, what)
    severity = ctx.string(obj, "severity", what, "critical")
    if severity not in SEVERITIES:
        ctx.fail(obj, "severity", f"severity of {what} must be one of {', '.join(SEVERITIES)}")
    fallback = obj.get("fallback", False)
    if not isinstance(fallback, bool):
        ctx.fail(obj, "fallback", f"'fallback' of {what} must be true or false")
    runbook = ctx.ident(obj, "runbook", what)
    if runbooks is not None and runbook not in runbooks:
        ctx.fail(obj, "runbook", f"{what} points to unknown runbook '{runbook}'",
                 f"known runbooks: {', '.join(sorted(runbooks))}")
    diagnosis = ctx.ident(obj, "diagnosis", what)
    cause_of = _strings(ctx, obj, "cause_of", what) if "cause_of" in obj else ()
    for d in cause_of:
        if not ID_RE.match(d) or d == diagnosis:
            ctx.fail(obj, "cause_of", f"cause_of of {what} must list other diagnosis ids", f"got: {d}")
    if cause_of and fallback:
        ctx.fail(obj, "cause_of", f"{what} is a fallback: it cannot also go ahead of a runbook's diagnosis")
    leaves_open = _leaves_open(ctx, obj, runbooks, runbook, what) if "leaves_open" in obj else ()
    if leaves_open and cause_of:
        ctx.fail(obj, "leaves_open", f"{what} names the cause of a diagnosis (cause_of): it cannot also leave causes open")
    if not ID_RE.match(str(ctx.string(obj, "family", what))):
        ctx.fail(obj, "family", f"invalid family of {what}")
    confirm_check, commands, contradicted = "", (), ()
    if "confirm" in obj:
        conf = ctx.mapping(obj["confirm"], "confirm", obj, "confirm")
        ctx.keys(conf, CONFIRM_KEYS, (), f"confirm of {what}")
        confirm_check = ctx.string(conf, "check", what)
        if confirm_check and checks is not None and confirm_check not in checks:
            ctx.fail(conf, "check", f"{what} names unknown check '{confirm_check}'")
        commands = _strings(ctx, conf, "commands", f"confirm of {what}")
        if "contradicted" in conf:
            contradicted = _contradicted(ctx, conf, confirm_check, checks, f"contradicted reading of {what}")
    return SignatureDef(
        id=sid, family=ctx.string(obj, "family", what), patterns=patterns, anchors=tuple(anchors),
        ignore_case=tuple(folds), means=_means(ctx, obj, what), runbook=runbook,
        diagnosis=diagnosis, confidence=confidence, severity=severity, fallback=fallback,
        confirm_check=confirm_check, commands=commands, sources=sources, examples=examples, path=ctx.path,
        line=obj.line, contradicted=contradicted, when=when, cause_of=tuple(cause_of), leaves_open=leaves_open,
        context=_context(ctx, obj, runbooks, what) if "context" in obj else ())


def _leaves_open(ctx: _Ctx, obj: LineDict, runbooks: dict[str, Any] | None, runbook: str, what: str) -> tuple[str, ...]:
    """The runbook's diagnoses a symptom line leaves open: each must be one the runbook declares with a `settle`
    command, since listing it is only useful with the command that decides it."""
    ids = tuple(_strings(ctx, obj, "leaves_open", what))
    if not ids:
        ctx.fail(obj, "leaves_open", f"leaves_open of {what} must list the runbook's diagnosis ids, most likely first")
    rb = runbooks.get(runbook) if runbooks is not None else None
    if rb is not None:
        settled = {d.id for d in rb.diagnoses if d.settle}
        for d in ids:
            if d not in settled:
                ctx.fail(obj, "leaves_open", f"leaves_open of {what} names '{d}', which runbook {runbook} does not "
                         "declare with a settle command", f"diagnoses with one: {', '.join(sorted(settled))}")
    return ids


def _context(ctx: _Ctx, obj: LineDict, runbooks: dict[str, Any] | None, what: str) -> tuple[ContextReading, ...]:
    """Readings a nearby line selects: each with its line pattern (checked like a signature's,
    and tried only on lines holding its literal), a real example of that line, and its cause."""
    raw = obj["context"]
    items = raw if isinstance(raw, list) else [raw]
    if not items:
        ctx.fail(obj, "context", f"context of {what} is an empty list", "give one reading, or a list of them")
    out = []
    for item in items:
        where = f"context reading of {what}"
        r = ctx.mapping(item, where, obj, "context")
        ctx.keys(r, CONTEXT_KEYS, ("line", "diagnosis", "means", "example"), where)
        pattern = str(r["line"])
        problem = pattern_problem(pattern)
        if problem:
            ctx.fail(r, "line", f"line pattern of {where} refused: {problem}", f"in: {pattern}")
        lits = pattern_anchors(pattern)
        if not lits or len(lits[0]) < MIN_ANCHOR:
            ctx.fail(r, "line", f"line pattern of {where} has no literal of {MIN_ANCHOR}+ characters")
        if not any(re.search(pattern, ex) for ex in _strings(ctx, r, "example", where)):
            ctx.fail(r, "example", f"example of {where} does not match its line pattern")
        runbook = ctx.string(r, "runbook", where)
        if runbook and runbooks is not None and runbook not in runbooks:
            ctx.fail(r, "runbook", f"{where} points to unknown runbook '{runbook}'")
        severity = ctx.string(r, "severity", where)
        if severity and severity not in SEVERITIES:
            ctx.fail(r, "severity", f"severity of {where} must be one of {', '.join(SEVERITIES)}")
        within = r.get("within", 50)
        if not isinstance(within, int) or not 0 < within <= 1000:
            ctx.fail(r, "within", f"'within' of {where} must be a number of lines from 1 to 1000")
        out.append(ContextReading(pattern, lits, ctx.ident(r, "diagnosis", where), _means(ctx, r, where), runbook,
                                  _confidence(ctx, r, where), severity, _strings(ctx, r, "commands", where),
                                  _urls(ctx, r, where), within))
    return tuple(out)


def _contradicted(ctx: _Ctx, conf: LineDict, confirm_check: str, checks: dict[str, Any] | None,
                  what: str) -> tuple[ContradictedReading, ...]:
    """One reading (a mapping) or several (a list, the first that applies wins)."""
    raw = conf["contradicted"]
    items = raw if isinstance(raw, list) else [raw]
    if not items:
        ctx.fail(conf, "contradicted", f"{what} is an empty list", "give one reading, or a list of them")
    return tuple(_reading(ctx, item, conf, confirm_check, checks, what) for item in items)


def _reading(ctx: _Ctx, item: Any, conf: LineDict, confirm_check: str, checks: dict[str, Any] | None,
             what: str) -> ContradictedReading:
    obj = ctx.mapping(item, what, conf, "contradicted")
    ctx.keys(obj, CONTRADICTED_KEYS, ("diagnosis", "means"), what)
    check = ctx.string(obj, "check", what) or confirm_check
    if not check:
        ctx.fail(obj, None, f"{what} needs a check that refutes the line",
                 "give 'check' in confirm (or in the reading itself)")
    if "check" in obj and checks is not None and check not in checks:
        ctx.fail(obj, "check", f"{what} names unknown check '{check}'")
    outputs: tuple[tuple[str, Any], ...] = ()
    if "outputs" in obj:
        want = ctx.mapping(obj["outputs"], f"outputs of {what}", obj, "outputs")
        known = {name for name, _ in checks[check].outputs} if checks is not None and check in checks else None
        for name, value in want.items():
            if known is not None and name not in known:
                ctx.fail(want, name, f"{what}: check '{check}' has no output '{name}'",
                         f"its outputs: {', '.join(sorted(known)) or 'none'}")
            if not isinstance(value, (str, int, float, bool)):
                ctx.fail(want, name, f"{what}: output '{name}' must equal a plain value (text, number, true/false)")
        outputs = tuple((str(k), v) for k, v in want.items())
    severity = ctx.string(obj, "severity", what)
    if severity and severity not in SEVERITIES:
        ctx.fail(obj, "severity", f"severity of {what} must be one of {', '.join(SEVERITIES)}")
    states = _strings(ctx, obj, "states", what) if "states" in obj else ("pass",)
    bad = [s for s in states if s not in CHECK_STATES]
    if bad or not states:
        ctx.fail(obj, "states", f"states of {what} must be among {', '.join(CHECK_STATES)}")
    present = _strings(ctx, obj, "present", what) if "present" in obj else ()
    known = {name for name, _ in checks[check].outputs} if checks is not None and check in checks else None
    for name in present:
        if known is not None and name not in known:
            ctx.fail(obj, "present", f"{what}: check '{check}' has no output '{name}'")
    return ContradictedReading(ctx.ident(obj, "diagnosis", what), _means(ctx, obj, what), _confidence(ctx, obj, what),
                               _strings(ctx, obj, "commands", what), _urls(ctx, obj, what),
                               check if check != confirm_check else "", outputs, severity, states, present)



def _holds(when: str, compiled: list[re.Pattern[str]], example: str) -> bool:
    """Whether an example's captured values satisfy the signature's `when` (checked at load time)."""
    from rocmdoctor.catalog.expressions import holds

    return next((holds(when, m) for m in (c.search(example) for c in compiled) if m), False)
