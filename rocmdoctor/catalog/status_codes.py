"""Status codes by name and meaning: the numbers and symbols ROCm's layers print, read
through the tables generated from the headers that define them.

A line says `Call returned 4104`, `probe ... failed with error -12`, `clGetPlatformIDs(-1001)`
or `HIP error: invalid device function`; an on-call engineer needs HSA_STATUS_ERROR_OUT_OF_RESOURCES,
ENOMEM, CL_PLATFORM_NOT_FOUND_KHR or hipErrorInvalidDeviceFunction and what the header says they
mean. The tables (data/codes_<numbering>.yaml) come from tools/gen_status_codes.py; the forms a
code takes in text (data/code_forms.yaml) each carry a real example. Patterns are ours, run on a
window of the untrusted line around a literal anchor; values found are only looked up, never
used as a pattern or a template.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rocmdoctor.catalog.datafiles import load_data

#: the numberings, in the order a line's codes are reported
NUMBERINGS = ("hsa_status", "hip_error", "hip_error_legacy", "amdsmi_status", "rsmi_status", "opencl", "errno")
#: a code's pattern sees at most this many characters either side of its anchor
WINDOW = 300
#: codes are looked for in a line's first this many characters: a status line is short, and a
#: hostile megabyte line then costs no more than an ordinary one
SCAN = 4096


@dataclass(frozen=True)
class CodeReading:
    """One code found in a line, named and explained."""

    numbering: str      # table id: hsa_status, hip_error, errno...
    table: str          # the table's title: "ROCr (HSA runtime) hsa_status_t"
    name: str           # the symbol: HSA_STATUS_ERROR_OUT_OF_RESOURCES
    value: int
    written: str        # how the line wrote it: "4104", "-12", "invalid device function", the name
    meaning: str        # the header's comment (or the library's message for the code)
    header: str         # "ROCm/ROCR-Runtime runtime/hsa-runtime/inc/hsa.h"

    def describe(self) -> str:
        number = f"0x{self.value:X}" if self.numbering == "hsa_status" and self.value >= 0x1000 else str(self.value)
        if self.numbering == "errno":
            number = f"-{self.value}" if self.written.startswith("-") else str(self.value)
        head = self.name if self.written == self.name else f"{self.written} = {self.name}"
        what = f" ({number}, {self.table}; {self.header})" if self.written != number else f" ({self.table}; {self.header})"
        return f"{head}{what}" + (f": {self.meaning}" if self.meaning else "")


@dataclass(frozen=True)
class _Form:
    numbering: str
    anchor: str
    fold: bool
    pattern: re.Pattern[str]
    kind: str  # name | number | neg | message


@dataclass(frozen=True)
class _Table:
    numbering: str
    title: str
    header: str
    repo: str
    by_name: dict[str, dict[str, Any]]
    by_value: dict[int, dict[str, Any]]
    by_message: dict[str, list[dict[str, Any]]]   # a message two codes share (HIP 200 and 300) names both


@lru_cache(maxsize=1)
def _tables() -> dict[str, _Table]:
    out = {}
    for numbering in NUMBERINGS:
        doc = load_data(f"codes_{numbering}")
        codes = list(doc.get("codes") or [])
        by_name = {c["name"]: c for c in codes}
        for alias, target in (doc.get("aliases") or {}).items():
            if target in by_name:
                by_name.setdefault(alias, {**by_name[target], "alias": alias})
        src = (doc.get("sources") or [{}])[0]
        out[numbering] = _Table(
            numbering, str(doc.get("title", numbering)), f"{src.get('repo', '')} {src.get('file', '')}".strip(),
            str(src.get("repo", "")),
            by_name, {int(c["value"]): c for c in codes},
            _by_message(codes))
    return out


def _messages_group(numbering: str, min_words: int) -> str:
    """An alternation of the table's messages of at least `min_words` words (escaped: ours
    as text, never the line's), for a form that finds a library's message in a line."""
    messages = sorted((m for m in _tables()[numbering].by_message if len(m.split()) >= min_words), key=len, reverse=True)
    return r"(?P<message>" + "|".join(re.escape(m) for m in messages) + r")"


@lru_cache(maxsize=1)
def _forms() -> tuple[_Form, ...]:
    forms = []
    for f in load_data("code_forms")["forms"]:
        raw = str(f["pattern"])
        if raw == "<messages>":  # the message alone, anywhere in the line
            raw = "(?i)" + _messages_group(str(f["numbering"]), int(f.get("min_words", 5)))
        elif "<messages>" in raw:  # the message inside the wrapper a caller prints it in
            raw = raw.replace("<messages>", _messages_group(str(f["numbering"]), int(f.get("min_words", 1))))
        pattern = re.compile(raw)
        kinds = [k for k in ("name", "number", "neg", "message") if k in pattern.groupindex]
        forms.append(_Form(str(f["numbering"]), str(f["anchor"]), bool(f.get("fold")), pattern, kinds[0]))
    return tuple(forms)


def _by_message(codes: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for c in codes:
        if c.get("message"):
            out.setdefault(str(c["message"]).lower(), []).append(c)
    return out


def _number(text: str) -> int:
    """0x hex, else decimal (HIP's samples print 0100 for 100: not octal)."""
    return int(text, 16) if text.lower().startswith("0x") else int(text, 10)


def _lookup(table: _Table, kind: str, text: str) -> list[tuple[dict[str, Any], int]]:
    if kind == "name":
        entry = table.by_name.get(text)
        return [(entry, int(entry["value"]))] if entry else []
    if kind == "message":
        return [(e, int(e["value"])) for e in table.by_message.get(text.strip().lower(), [])]
    value = _number(text) if kind == "number" or table.numbering == "opencl" else abs(int(text))
    if table.numbering == "amdsmi_status" and kind == "neg" and value > 1000:
        value -= 1000  # amd-smi's CLI reports library status N as -1000 - N
    entry = table.by_value.get(value)
    return [(entry, value)] if entry else []


def read_codes(line: str) -> tuple[CodeReading, ...]:
    """Every status code `line` carries that a table knows, once each, in table order.

    A code written as its own symbol is reported too (its meaning is what the reader lacks);
    a number that no table of its form's numbering holds is not a code and is skipped."""
    tables = _tables()
    line = line[:SCAN]
    lowered = line.lower()
    found: dict[tuple[str, int], CodeReading] = {}
    for form in _forms():
        hay = lowered if form.fold else line
        at = hay.find(form.anchor.lower() if form.fold else form.anchor)
        if at < 0:
            continue
        window = line[max(0, at - WINDOW): at + len(form.anchor) + WINDOW]
        table = tables[form.numbering]
        for m in form.pattern.finditer(window):
            written = m.group(form.kind)
            for entry, value in _lookup(table, form.kind, written):
                if form.numbering == "errno" and not 0 < value < 134:
                    continue
                key = (form.numbering, value)
                if key not in found:
                    name = str(entry.get("alias") or entry["name"]) if form.kind == "name" else str(entry["name"])
                    meaning = str(entry.get("meaning") or entry.get("message") or "")
                    header = f"{table.repo} {entry['file']}" if entry.get("file") else table.header
                    found[key] = CodeReading(form.numbering, table.title, name, value,
                                             name if form.kind == "name" else written, meaning, header)
    # a line from HIP before ROCm 3.1 that prints the name with its old number ('hipErrorInvalidDevice'(1010)):
    # the old number says which HIP wrote it, so today's value for that name is not reported beside it
    legacy = {r.name for r in found.values() if r.numbering == "hip_error_legacy"}
    readings = [r for r in found.values() if not (r.numbering == "hip_error" and r.name in legacy)]
    order = {n: i for i, n in enumerate(NUMBERINGS)}
    return tuple(sorted(readings, key=lambda r: order[r.numbering]))


@lru_cache(maxsize=1)
def code_prefilter() -> re.Pattern[str]:
    """One search that tells whether a line may hold a code written as a number or a message in
    the numberings signatures name (errno codes are only explained, never renamed for a
    signature): the literal anchors of those forms, and the messages' alternation."""
    literals: set[str] = set()
    for f, raw in zip(_forms(), load_data("code_forms")["forms"]):
        if f.numbering != "errno" and f.kind != "name":
            literals.update(str(x) for x in (raw.get("prefilter") or [f.anchor]))
    # case-sensitive literals only: one alternation of them is a fast C-level search per line
    return re.compile("|".join(re.escape(x) for x in sorted(literals, key=len, reverse=True)))


def code_names(line: str) -> tuple[str, ...]:
    """The symbols of the codes `line` writes as numbers or messages: appended to the line a
    signature reads, so a signature written for HSA_STATUS_ERROR_OUT_OF_RESOURCES also reads
    `Call returned 4104` (one reading for every way a code is printed)."""
    return tuple(r.name for r in read_codes(line) if r.written != r.name and r.name not in line)


#: how a code's explanation is written under the evidence line that carries it
CODE_PREFIX = "  code: "


def with_codes(lines: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Evidence lines with each status code they carry named under them (once per code):
    `probe ... failed with error -12` is followed by `  code: -12 = ENOMEM (...): Out of memory`."""
    out: list[str] = []
    told: set[str] = set()
    for line in lines:
        out.append(line)
        if line.startswith(CODE_PREFIX):
            told.add(line)
            continue
        for reading in read_codes(line):
            text = CODE_PREFIX + reading.describe()
            if text not in told:
                told.add(text)
                out.append(text)
    return tuple(out)
