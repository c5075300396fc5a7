"""/proc/modules: which kernel modules are loaded, their users and state.

Read instead of `lsmod` because it is a file (no tool needed on the node) and
carries the state (`Live`/`Loading`/`Unloading`) and taint flags lsmod hides.
Line format (kernel/module/procfs.c m_show): `name size refcount deps state
0xaddr [(taint)]`, deps being `a,b,` or `-`.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_LINE = re.compile(
    r"^(?P<name>[\w-]+) (?P<size>\d+) (?P<refcount>-?\d+|-) (?P<deps>\S+) "
    r"(?P<state>Live|Loading|Unloading)(?: (?P<addr>0x[0-9a-f]+))?(?: \((?P<taint>[A-Z+-]+)\))?\s*$"
)


@parser("proc_modules")
def parse_proc_modules(text: str) -> dict[str, dict[str, Any]]:
    """Loaded kernel modules from /proc/modules, by name.

    Returns `{name: {size: int, refcount: int|None, deps: [str], state: str,
    taint: str}}` (`deps` are the modules using this one, as /proc/modules lists
    them; `taint` is e.g. "OE" or ""). Empty text means no modules (`{}`).
    Raises ParseError on a line that is not a /proc/modules line.
    """
    out: dict[str, dict[str, Any]] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _LINE.match(line.strip())
        if not m:
            raise ParseError(f"line {lineno} is not a /proc/modules line: {line[:60]!r}")
        out[m.group("name")] = module_record(m)
    return out


def module_record(m: re.Match[str]) -> dict[str, Any]:
    """One module's entry from a line matched with named groups size, refcount, deps, state,
    taint (lsmod's table has the same columns, some of them missing)."""
    deps = m.group("deps") or ""
    ref = m.group("refcount")
    return {
        "size": int(m.group("size")),
        "refcount": None if ref == "-" else int(ref),
        "deps": [] if deps in ("", "-", "[permanent]") else [d for d in deps.split(",") if d],
        "state": m.group("state"),
        "taint": m.group("taint") or "",
    }
