"""Parsers turn raw evidence text into values the rule expressions use.

Generic parsers live here; parsers for a real tool's format live in one small
module per source (`amd_smi.py`, `rocminfo.py`, `kernel_log.py`, ...) and
register themselves with `@parser("name")`. A parser takes the text and returns
plain JSON-able data (dicts, lists, str, int, float, bool, None). It raises
`ParseError` on text it cannot read; the check then goes UNKNOWN with that reason.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

ParserFn = Callable[[str], Any]

_REGISTRY: dict[str, tuple[ParserFn, str]] = {}
_loaded = False
_lock = threading.Lock()


class ParseError(ValueError):
    """The text is not in the format the parser reads."""


def continued_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each logical line: a line ending in a backslash continues on
    the next, as in shells and modprobe.d. A continuation left open at the end is still yielded."""
    buf, start = "", 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not buf:
            start = lineno
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        yield start, buf + line
        buf = ""
    if buf:
        yield start, buf


def parser(name: str) -> Callable[[ParserFn], ParserFn]:
    def register(fn: ParserFn) -> ParserFn:
        doc = (fn.__doc__ or "").strip().splitlines()
        _REGISTRY[name] = (fn, doc[0] if doc else "")
        return fn

    return register


def _load_all() -> None:
    """Import every parser module once; the lock makes threads (sweeps, TUI workers)
    wait for the registry to be complete instead of seeing it half-filled."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        for mod in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{mod.name}")
        _loaded = True


_DECORATOR = re.compile(r'^@parser\("([A-Za-z0-9_]+)"\)', re.MULTILINE)
_index: dict[str, str] | None = None


def _module_index() -> dict[str, str]:
    """parser name -> module, read from the modules' source (`@parser("name")` lines)
    without importing them: a plan then imports only the parsers it uses, since
    importing all of them (and compiling their regexes) costs ~30 ms per call."""
    global _index
    if _index is None:
        from pathlib import Path

        index: dict[str, str] = {}
        for mod in pkgutil.iter_modules(__path__):
            try:
                source = (Path(__file__).parent / f"{mod.name}.py").read_text(encoding="utf-8")
            except OSError:
                continue
            for name in _DECORATOR.findall(source):
                index.setdefault(name, mod.name)
        _index = index
    return _index


def load_parsers(names: Iterable[str]) -> None:
    """Import the modules that register `names` (thread-safe; unknown names are left
    for get_parser to report)."""
    wanted = [n for n in names if n not in _REGISTRY]
    if not wanted or _loaded:
        return
    index = _module_index()
    with _lock:
        for name in wanted:
            module = index.get(name)
            if module and name not in _REGISTRY:
                importlib.import_module(f"{__name__}.{module}")


def get_parser(name: str) -> ParserFn | None:
    entry = _REGISTRY.get(name)
    if entry is None:
        load_parsers([name])
        entry = _REGISTRY.get(name)
    if entry is None:  # not where the index says: look everywhere before saying unknown
        _load_all()
        entry = _REGISTRY.get(name)
    return entry[0] if entry else None


# The same text parsed the same way by several checks (the kernel log is read by ten, and
# `ras_log_counts` reads its events too) is parsed once per evaluation: a 1 MiB dmesg cost 2.9 s
# of a 5.4 s triage in ten parses (measured 2026-11-23, benchmarks/kernel_log_bench.py). Keyed by
# the text object itself, kept alive beside its result so an id is never reused for another text;
# per thread (sweeps evaluate hosts in parallel) and dropped when the evaluation ends. Parsed
# values are shared read-only: expressions run in Jinja's ImmutableSandboxedEnvironment.
_PARSED = threading.local()


@contextmanager
def parse_once() -> Iterator[None]:
    """Within this block, each (parser, text) pair is parsed once."""
    previous = getattr(_PARSED, "memo", None)
    _PARSED.memo = {}
    try:
        yield
    finally:
        _PARSED.memo = previous


def parse_memoized(key: str, fn: ParserFn, text: Any) -> Any:
    """`fn(text)`, remembered under (key, text) inside parse_once(); a ParseError is
    remembered too and raised again for the next caller of the same pair."""
    memo: dict[tuple[str, int], tuple[Any, Any, ParseError | None]] | None = getattr(_PARSED, "memo", None)
    if memo is None:
        return fn(text)
    hit = memo.get((key, id(text)))
    if hit is not None and hit[0] is text:
        if hit[2] is not None:
            raise hit[2]
        return hit[1]
    try:
        value = fn(text)
    except ParseError as exc:
        memo[(key, id(text))] = (text, None, exc)
        raise
    memo[(key, id(text))] = (text, value, None)
    return value


def parsed(name: str, text: str) -> Any:
    """What the registered parser `name` makes of `text`, through the same memo: for parsers
    that build on another parser's result (RAS counts on the kernel log's events)."""
    fn = get_parser(name)
    if fn is None:
        raise KeyError(f"no parser named {name!r}")
    return parse_memoized(name, fn, text)


def parser_names() -> dict[str, str]:
    _load_all()
    return {name: doc for name, (_, doc) in sorted(_REGISTRY.items())}


def regex_parser(pattern: str) -> ParserFn:
    compiled = re.compile(pattern, re.MULTILINE)

    def parse(text: str) -> list[dict[str, str]]:
        return [m.groupdict() for m in compiled.finditer(text)]

    return parse


@parser("text")
def parse_text(text: str) -> str:
    """The text with surrounding white space removed."""
    return text.strip()


@parser("lines")
def parse_lines(text: str) -> list[str]:
    """Non-empty lines, right-stripped."""
    return [line.rstrip() for line in text.splitlines() if line.strip()]


@parser("json")
def parse_json(text: str) -> Any:
    """A JSON document."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None


@parser("int")
def parse_int(text: str) -> int:
    """One integer (decimal or 0x hex), as sysfs prints them."""
    value = text.strip()
    try:
        return int(value, 0)
    except ValueError:
        raise ParseError(f"not an integer: {value[:40]!r}") from None


@parser("keyvalue")
def parse_keyvalue(text: str) -> dict[str, str]:
    """`KEY=value` or `key: value` lines (os-release, uevent); quotes stripped."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([^=:\s]+)\s*[=:]\s*(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip().strip('"').strip("'")
    return out
