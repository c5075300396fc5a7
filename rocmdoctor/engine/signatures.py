"""Match the signature catalogue against text a user brings (a job log, a pasted
ticket) and fold the matches into runbook reports.

The text is untrusted: every line is cut to a window around the signature's
literal anchor before a pattern runs (patterns were checked at load time for
unbounded backtracking), values captured from it are only ever inserted into our
own sentences as plain text, never used as a pattern or a template.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable

from rocmdoctor.catalog.definitions import ContradictedReading, SignatureDef
from rocmdoctor.catalog.status_codes import SCAN, code_names, code_prefilter, read_codes, with_codes
from rocmdoctor.evidence.probe import GatherSpec
from rocmdoctor.results import CheckResult, Diagnosis, Evidence, RunbookReport, StepResult, to_jsonable
from rocmdoctor.status import State

if TYPE_CHECKING:
    from rocmdoctor.engine.compiler import Plan

#: a pattern sees at most this many characters either side of its anchor
WINDOW = 600
#: longest quoted line in a verdict
QUOTE = 300
CONFIDENCE_RANK = {"high": 0, "medium": 1, "low": 2}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_.:/+@%=,-]{1,80}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|\x1b\[[0-9;]*[A-Za-z]")


@dataclass(frozen=True)
class SignatureMatch:
    signature_id: str
    family: str
    runbook: str
    diagnosis: str
    confidence: str
    severity: str
    fallback: bool
    means: str              # the signature's sentence with the captured values filled in
    source: str             # file the line came from ("<text>" for pasted text)
    lineno: int
    line: str               # the line as quoted (control characters removed, cut to QUOTE)
    count: int = 1
    confirm_check: str = ""
    commands: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    groups: dict[str, str] = field(default_factory=dict)
    instead: tuple[ContradictedReading, ...] = ()   # the readings when the node refutes the line (filled in)
    codes: tuple[str, ...] = ()    # the status codes the line carries, named (catalog.status_codes)
    context_line: str = ""         # the nearby line that chose this reading (SignatureDef.context), quoted
    quote_undecided: bool = False  # a reading chosen by an UNKNOWN check: quote that check's evidence anyway
    cause_of: tuple[str, ...] = ()  # runbook diagnoses whose cause the line names (SignatureDef.cause_of)
    leaves_open: tuple[str, ...] = ()  # the causes a symptom line leaves open, likeliest first (SignatureDef.leaves_open)

    @property
    def quote(self) -> str:
        return f"{self.source}:{self.lineno}: {self.line}"

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(self)


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _clean(line: str) -> str:
    text = _CONTROL.sub("", line).strip()
    return text if len(text) <= QUOTE else text[:QUOTE - 3] + "..."


@lru_cache(maxsize=4096)
def _group_names(patterns: tuple[str, ...]) -> frozenset[str]:
    return frozenset(name for p in patterns for name in _compiled(p).groupindex)


def _fill(template: str, groups: dict[str, str], shell: bool = False, names: frozenset[str] | None = None) -> str:
    """Our sentence with captured values inserted as text (never as a format spec). In a command the reader
    will paste into a shell (`shell`), a value with any character outside a plain word (a path, a version, a
    package name) stays out: `<name>` takes its place, whatever quotes the template puts around it. Braces
    that name none of the pattern's groups (`names`: a regex's {8}, kubectl's jsonpath {end}, a shell's
    ${VAR}) are the command's own and stay as written."""
    def value(m: re.Match[str]) -> str:
        if names is not None and m.group(1) not in names:
            return m.group(0)
        v = groups.get(m.group(1))
        if shell and v and not _SHELL_SAFE.fullmatch(v):
            return f"<{m.group(1)}>"
        return _clean(v)[:80] if v else ""

    return _PLACEHOLDER.sub(value, template)


def _holds(when: str, m: re.Match[str]) -> bool:
    from rocmdoctor.catalog.expressions import holds   # only signatures with a condition need the sandbox

    return holds(when, m)


def _search(sig: SignatureDef, line: str, lowered: str) -> re.Match[str] | None:
    for pattern, anchors, fold in zip(sig.patterns, sig.anchors, sig.ignore_case):
        hay = lowered if fold else line
        if not all(a in hay for a in anchors):
            continue
        at = hay.find(anchors[0])
        window = line[max(0, at - WINDOW): at + len(anchors[0]) + WINDOW]
        m = _compiled(pattern).search(window)
        if m:
            return m
    return None


def _trie_pattern(words: Iterable[str]) -> str:
    """One regular expression for a set of literals, shared prefixes factored out (`abc|abd` ->
    `ab(?:c|d)`). Python's engine tries a flat alternation's branches one by one at every position;
    with the catalogue at 137 signatures that flat prefilter cost 1.8 s per 100,000 log lines
    (benchmarks/signatures_bench.py), the trie far less: no library does this without a new dependency."""
    trie: dict[str, Any] = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        end = "" in node
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if end else body
    return emit(trie)


@lru_cache(maxsize=64)
def _prefilter(anchors: tuple[tuple[str, bool], ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None, int]:
    """One pattern of every pattern's longest literal (ours, escaped, as a trie): a line that holds
    none of them is skipped with one C-level search instead of one test per signature. Also the
    length of the longest literal: how far around a line break one can reach."""
    exact = {a for a, fold in anchors if not fold}
    folded = {a.lower() for a, fold in anchors if fold}
    return (re.compile(_trie_pattern(exact)) if exact else None,
            re.compile(_trie_pattern(folded), re.IGNORECASE) if folded else None,
            max((len(a) for a, _ in anchors), default=0))


def match_text(signatures: Iterable[SignatureDef], text: str, source: str = "<text>") -> list[SignatureMatch]:
    """Every signature that matches a line of `text`: its first line quoted, all counted;
    ranked by confidence, then by where it first appeared, then by how much of the line it names."""
    sigs = list(signatures)
    # each pattern's longest literal: every literal must be on the line anyway, and the longest is the
    # rarest (`version ` or `open ` would let most lines of a log through to every pattern)
    exact, folded, longest = _prefilter(tuple((max(a, key=len), f) for sig in sigs for a, f in zip(sig.anchors, sig.ignore_case)))
    coded = code_prefilter()

    def _literal(hay: str) -> bool:
        return bool((exact is not None and exact.search(hay)) or (folded is not None and folded.search(hay)))

    first: dict[str, SignatureMatch] = {}
    counts: dict[str, int] = {}
    all_lines = text.splitlines()

    def scan(lineno: int, line: str, starts_before: int | None = None) -> bool | None:
        """True: a signature matched; False: a literal was there but no pattern; None: no literal.
        `starts_before`: a joined line counts only matches that begin on its first line."""
        # a code written as a number or a message is read as its symbol too: a signature
        # for HSA_STATUS_ERROR_OUT_OF_RESOURCES also reads `Call returned 4104`
        names = code_names(line) if starts_before is None and coded.search(line, 0, SCAN) else ()
        hay = f"{line} [{' '.join(names)}]" if names else line
        if not _literal(hay):
            return None
        lowered = hay.lower()
        found = False
        for sig in sigs:
            m = _search(sig, hay, lowered)
            if m is None or (starts_before is not None and m.start() >= starts_before):
                continue
            if sig.when and not _holds(sig.when, m):
                continue
            found = True
            counts[sig.id] = counts.get(sig.id, 0) + 1
            if sig.id not in first:
                groups = {k: v for k, v in m.groupdict().items() if v is not None}
                names = _group_names(tuple(sig.patterns))
                first[sig.id] = SignatureMatch(
                    sig.id, sig.family, sig.runbook, sig.diagnosis, sig.confidence, sig.severity, sig.fallback,
                    _fill(sig.means, groups, names=names), source, lineno, _clean(line), 1, sig.confirm_check,
                    tuple(_fill(c, groups, shell=True, names=names) for c in sig.commands), sig.sources,
                    {k: _clean(v)[:80] for k, v in groups.items()},
                    tuple(replace(alt, means=_fill(alt.means, groups, names=names),
                                  commands=tuple(_fill(c, groups, shell=True, names=names) for c in alt.commands))
                          for alt in sig.contradicted),
                    tuple(r.describe() for r in read_codes(line)), cause_of=sig.cause_of,
                    leaves_open=sig.leaves_open)
        return found

    for lineno, line in enumerate(all_lines, 1):
        hit = scan(lineno, line)
        if hit or lineno >= len(all_lines):
            continue
        # a message wrapped by a terminal or a paste: after its colon ("Unable to find group render:" /
        # "no matching entries in group file.") or comma (Triton's "out of resource: shared memory," /
        # "Required: 165888, Hardware limit: 163840."), in a line that holds a signature's literal but not its
        # whole pattern, or through a literal ("... on startup is less than" / "desired GPU memory
        # utilization ..."): that last one only where the next line goes on mid-sentence (lower case; a
        # log's own lines start with a timestamp, a bracket or a capital) and a literal spans the break
        following = all_lines[lineno].strip()
        first_line = line.rstrip()
        if not following or (hit is None and not first_line.endswith((":", ",")) and not (
                following[0].islower() and _literal(f"{first_line[-longest:]} {following[:longest]}"))):
            continue
        scan(lineno, f"{first_line} {following}", len(first_line))
    by_id = {s.id: s for s in sigs}
    lines = all_lines if any(by_id[i].context for i in first) else []
    out = [_read_in_context(replace(m, count=counts[m.signature_id]), by_id[m.signature_id], lines, source)
           for m in first.values()]
    # on one line, of two equally sure readings the one that holds more of the line's words goes first: a
    # library's own wording of HIP's "no ROCm-capable device" (yaksa's init hook) before the bare text
    return sorted(out, key=lambda m: (CONFIDENCE_RANK.get(m.confidence, 9), m.lineno, -_specificity(by_id[m.signature_id])))


def _specificity(sig: SignatureDef) -> int:
    """How much literal text a line must hold for the signature to match (its most literal pattern)."""
    return max((sum(len(a) for a in anchors) for anchors in sig.anchors), default=0)


def _read_in_context(m: SignatureMatch, sig: SignatureDef, lines: list[str], source: str) -> SignatureMatch:
    """The match as its neighbourhood reads it: the first context reading with a line (holding
    its literals, matching its pattern) within its reach of the match's line takes over."""
    for ctx in sig.context:
        lo, hi = max(0, m.lineno - 1 - ctx.within), min(len(lines), m.lineno + ctx.within)
        for n in range(lo, hi):
            line = lines[n]
            if n != m.lineno - 1 and all(a in line for a in ctx.anchors) and _compiled(ctx.line).search(line):
                quote = f"{source}:{n + 1}: {_clean(line)}"
                return replace(m, runbook=ctx.runbook or m.runbook, diagnosis=ctx.diagnosis,
                               means=_fill(ctx.means, m.groups, names=_group_names(tuple(sig.patterns))),
                               confidence=ctx.confidence,
                               severity=ctx.severity or m.severity, commands=ctx.commands or m.commands,
                               urls=(*m.urls, *ctx.sources), context_line=quote, instead=(), cause_of=(),
                               leaves_open=())
    return m


#: the kernel-log gathers the driver and kernel checks already put in the probe
#: (checks/driver.yaml, checks/kernel.yaml): matched here at no extra cost
KERNEL_LOGS = ("command:dmesg", "command:journalctl -k -b --no-pager")
#: rocminfo's own output, read by the probe. Matched there: the runtime's status lines (hsa), the loader's
#: errors (loader) and rocminfo's refusals to start that no step parses (rocminfo-startup). The /dev/kfd errno
#: and group lines are not: runtime.rocminfo_errors reads them with the node's context, which a signature
#: lacks (root refused is not a group problem).
ROCMINFO = "command:rocminfo"
ROCMINFO_FAMILIES = ("hsa", "loader", "rocminfo-startup")
#: the runtime tools' own output the probe reads, and the families of their status lines: rocminfo's
#: runtime and loader errors; clinfo's OpenCL ICD loader errors and, since ROCm's OpenCL runs on ROCr,
#: the same runtime and loader lines (ROCr's "HSA Error: Incompatible kernel and userspace" goes to any
#: ROCr program's stderr, amd_topology.cpp)
TOOL_OUTPUTS = ((ROCMINFO, ROCMINFO_FAMILIES), ("command:clinfo", ("opencl", *ROCMINFO_FAMILIES)))
#: the signature families matched against what the probe itself reads, with no job log given
NODE_TEXT_FAMILIES = ("kernel", *(f for _, families in TOOL_OUTPUTS for f in families))


def match_logs(plan: "Plan", evidence: dict[str, Evidence]) -> tuple[list[SignatureMatch], list[tuple[str, str]]]:
    """Signature matches in the plan's job logs (every family), in the kernel log the probe
    read (kernel-line signatures only) and in its rocminfo output (the runtime's status
    signatures, as fallbacks), and (path, why unread) per job log."""
    matches: list[SignatureMatch] = []
    logs: list[tuple[str, str]] = []
    for path in plan.logs:
        ev = evidence.get(GatherSpec(kind="tail", target=path).key)
        if ev is None or ev.status != "ok" or not isinstance(ev.value, str):
            logs.append((path, (ev.reason or ev.status) if ev is not None else "not collected"))
            continue
        logs.append((path, ""))
        matches += match_text(plan.signatures, ev.value, path)
    kernel_sigs = [s for s in plan.signatures if s.family == "kernel"]
    for key in KERNEL_LOGS if kernel_sigs else ():
        ev = evidence.get(key)
        if ev is not None and ev.status == "ok" and isinstance(ev.value, dict) and ev.value.get("stdout"):
            matches += match_text(kernel_sigs, str(ev.value["stdout"]), ev.source)
            break  # dmesg, or the journal where dmesg is restricted: the same lines
    # rocminfo's and clinfo's lines: the runbooks' own checks read them first, so a match there only names
    # a cause where the runbook found none (a fallback), and routes to no runbook that was not asked for
    asked = {rb.id for rb in plan.runbooks}
    for key, families in TOOL_OUTPUTS:
        tool_sigs = [s for s in plan.signatures if s.family in families and s.runbook in asked]
        ev = evidence.get(key)
        if tool_sigs and ev is not None and ev.status == "ok" and isinstance(ev.value, dict):
            text = f"{ev.value.get('stdout', '')}\n{ev.value.get('stderr', '')}"
            matches += [replace(m, fallback=True) for m in match_text(tool_sigs, text, ev.source)]
    matches.sort(key=lambda m: CONFIDENCE_RANK.get(m.confidence, 9))  # stable: log order kept within a rank
    return matches, logs


def best_per_diagnosis(matches: Iterable[SignatureMatch]) -> list[SignatureMatch]:
    """One match per (runbook, diagnosis), the highest ranked, order kept."""
    seen: set[tuple[str, str]] = set()
    out = []
    for m in matches:
        key = (m.runbook, m.diagnosis)
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


def log_step(runbook_id: str, matches: list[SignatureMatch], logs: list[tuple[str, str]]) -> StepResult:
    """The step a runbook shows for the logs it was given: what matched, or why nothing.

    `logs`: (path, problem) per log; problem is "" when the log was read."""
    sources = tuple(f"tail -c 1M {path}" for path, _ in logs)
    unread = [f"{path}: {problem}" for path, problem in logs if problem]
    title = "Known error messages in the log"
    if matches:
        state = State.FAIL if any(m.severity == "critical" for m in matches) else State.WARN
        names = ", ".join(f"{m.signature_id}" + (f" x{m.count}" if m.count > 1 else "") for m in matches)
        message = f"{len(matches)} known error signature(s): {names}"
        outputs = {"matches": [m.to_dict() for m in matches]}
        quotes = tuple(dict.fromkeys(m.quote for m in matches))  # a line two signatures read, once
        check = CheckResult("log.signatures", title, state, message, quotes, outputs, sources)
        return StepResult(runbook_id, "log", title, check)
    if unread and len(unread) == len(logs):
        check = CheckResult("log.signatures", title, State.UNKNOWN, "; ".join(unread), (), {"matches": []}, sources)
        return StepResult(runbook_id, "log", title, check)
    read = ", ".join(path for path, problem in logs if not problem)
    return StepResult(runbook_id, "log", title, None, f"no {runbook_id} error signature in {read}")


def _confirming_step(report: RunbookReport, check_id: str, decided: bool = True) -> StepResult | None:
    """The step that ran the signature's confirming check on this node (by default only when it decided)."""
    for step in report.steps:
        c = step.check
        if check_id and c is not None and c.check_id == check_id and (c.state != State.UNKNOWN or not decided):
            return step
    return None


def _confirmed_on_node(report: RunbookReport, check_id: str, decided: bool = True) -> tuple[str, ...]:
    """What the signature's confirming check said on this node, as evidence lines: the
    node-side half of a diagnosis a log line made (nothing when it did not run)."""
    step = _confirming_step(report, check_id, decided)
    if step is None or step.check is None:
        return ()
    return (f"{step.step_id}: {step.check.message}", *step.check.evidence)


def _refutes(alt: ContradictedReading, m: SignatureMatch, report: RunbookReport) -> bool:
    """The reading's check ended in one of the reading's states (PASS unless it says), with the
    outputs the reading names equal and the ones it needs present."""
    step = _confirming_step(report, alt.check or m.confirm_check, decided=False)
    if step is None or step.check is None or step.check.state.value not in alt.states:
        return False
    outputs = step.check.outputs
    return (all(name in outputs and outputs[name] == value for name, value in alt.outputs)
            and all(outputs.get(name) not in (None, "", [], {}) for name in alt.present))


def _read_against_node(m: SignatureMatch, report: RunbookReport) -> SignatureMatch:
    """The match as the node reads it: the first `contradicted` reading whose check PASSED
    (with its outputs) refutes the line's usual reading, and the match then carries that
    reading, quoting that check as the node's word."""
    alt = next((a for a in m.instead if _refutes(a, m, report)), None)
    if alt is None:
        return m
    return replace(m, diagnosis=alt.diagnosis, means=alt.means, confidence=alt.confidence, cause_of=(), leaves_open=(),
                   severity=alt.severity or m.severity, commands=alt.commands or m.commands,
                   urls=(*m.urls, *alt.sources), confirm_check=alt.check or m.confirm_check,
                   quote_undecided="unknown" in alt.states)


def _rank_of_line_reading(diagnoses: list[Diagnosis], m: SignatureMatch, context: frozenset[str] = frozenset()) -> int:
    """Where a signature's own diagnosis goes among the runbook's: after them, except where a
    runbook diagnosis rests on the very line the signature read (its evidence quotes it, and
    nothing else) and is no surer: the catalogue's precise reading of a line then comes first; and
    except ahead of a diagnosis the signature names the cause of (`cause_of`) or one the runbook marks
    `context` (in `context`). A `fallback` (generic) signature never goes before a runbook's own cause."""
    if m.fallback:
        return len(diagnoses)
    mine = CONFIDENCE_RANK.get(m.confidence, 9)
    for i, d in enumerate(diagnoses):
        if d.diagnosis_id in m.cause_of:
            return i
        if d.diagnosis_id in context:
            return i  # a condition (the GPU is off AMD's list), not what broke: the line's own cause goes first
        if d.step_id == "log":
            continue  # another signature's reading, placed already in match_text's order (the more specific first)
        quotes = [m.line in ev for ev in d.evidence]
        # ... unless it rests on more than that line: the node's context refines the line's reading
        if any(quotes) and all(quotes) and mine <= CONFIDENCE_RANK.get(d.confidence, 9):
            return i
    return len(diagnoses)


def left_open(report: RunbookReport) -> tuple[str, ...]:
    """The causes the report's symptom lines leave open, likeliest first, each once (the log step's matches)."""
    step = report.steps[0] if report.steps and report.steps[0].step_id == "log" else None
    matches = step.check.outputs.get("matches", []) if step is not None and step.check is not None else []
    return tuple(dict.fromkeys(d for m in matches for d in m.get("leaves_open") or ()))


def fold_matches(report: RunbookReport, matches: list[SignatureMatch], logs: list[tuple[str, str]],
                 host: str = "<host>", context: frozenset[str] = frozenset()) -> RunbookReport:
    """The report with the log step first and the matches as diagnoses: a match whose
    diagnosis the runbook already made adds its quoted line to that diagnosis' evidence;
    another becomes a diagnosis of its own (after the ones node evidence made), quoting what
    the signature's confirming check found on the node when the runbook ran it; a
    `fallback` match only when the runbook found no cause at all (a `context` condition, such as a
    GPU off its release's list, is not one: the generic reading then follows it). A symptom line
    (`leaves_open`) fails the log step but makes no diagnosis of its own: the causes it leaves open are
    listed instead (open_causes), unless the runbook already made its diagnosis from the node."""
    if host.startswith("bundle:"):
        host = "HOST"  # a bundle's label is not a target one can triage
    mine = [_read_against_node(m, report) for m in matches if m.runbook == report.runbook_id]
    step = log_step(report.runbook_id, mine, logs)
    diagnoses = list(report.diagnoses)
    own = any(d.diagnosis_id not in context for d in diagnoses)  # a condition (`context`) is not a cause found
    # a generic (fallback) signature after the precise ones the same log matched
    for m in sorted(best_per_diagnosis(mine), key=lambda m: m.fallback):
        at = next((i for i, d in enumerate(diagnoses) if d.diagnosis_id == m.diagnosis), None)
        if at is not None:
            d = diagnoses[at]
            if m.quote not in d.evidence:
                diagnoses[at] = replace(d, evidence=with_codes((m.quote, *d.evidence)))
            continue
        if (m.fallback and own) or m.leaves_open:
            continue
        rank = _rank_of_line_reading(diagnoses, m, context)
        follow = (*(f"Confirm on the node: `{c}`" for c in m.commands),
                  f"`rocmdoctor triage {host} --runbook {m.runbook}` settles it on the node.")
        quoted = (m.quote, m.context_line) if m.context_line else (m.quote,)
        made = Diagnosis(report.runbook_id, m.diagnosis, "log", m.means, m.confidence,
                         with_codes((*quoted, *_confirmed_on_node(report, m.confirm_check, not m.quote_undecided))),
                         (), follow)
        diagnoses.insert(rank, made)
    return RunbookReport(report.runbook_id, report.title, (step, *report.steps), tuple(diagnoses))


def explain_text(text: str, source: str = "<text>", paths: Iterable[str] = ()) -> list[SignatureMatch]:
    """`rocmdoctor explain`: the catalogue (built-in plus --path dirs) against pasted text."""
    from rocmdoctor.catalog.loader import load_catalog

    return match_text(load_catalog(paths).signatures, text, source)
