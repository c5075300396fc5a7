"""Match the signature catalogue against text a user brings (a job log, a pasted ticket, a node's
kernel log): which signatures a line holds, read with the lines around it.

The text is untrusted: every line is cut to a window around the signature's
literal anchor before a pattern runs (patterns were checked at load time for
unbounded backtracking), values captured from it are only ever inserted into our
own sentences as plain text, never used as a pattern or a template.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Iterable

from rocmdoctor.catalog.definitions import ContradictedReading, SignatureDef
from rocmdoctor.catalog.status_codes import SCAN, code_names, code_prefilter, read_codes
from rocmdoctor.results import to_jsonable

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
        if v:
            return _clean(v)[:80]
        # a group the line did not carry (an optional part a poster elided): said so, not left as a hole
        return "" if shell else "(not in the line)"

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
