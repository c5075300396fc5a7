"""Hostlist expressions as Slurm and ClusterShell write them, and folding back.

`node[001-168]`, `gpu[01-04,07]-ib`, `rack[1-2]-n[01-03]` (several brackets:
the cartesian product, leftmost slowest, as ClusterShell expands them),
`n[1-9/2]` (a step, ClusterShell syntax) and comma lists at the top level
(`a,b[1-2],c`). Zero padding follows the width of the range's lower bound,
like both tools. Expansion is capped so a typo such as `n[1-99999999]` is a
clear error instead of an out-of-memory.
"""

from __future__ import annotations

import itertools
import re
from typing import Iterable

from rocmdoctor.errors import RocmdoctorError

MAX_HOSTS = 100_000
_RANGE = re.compile(r"^(\d+)(?:-(\d+)(?:/(\d+))?)?$")
_SPLIT = re.compile(r"^(.*?)(\d+)(\D*)$")


class HostlistError(RocmdoctorError):
    """A malformed hostlist expression; the message quotes it and says what is wrong."""


def split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets: `a[1,2],b` -> [`a[1,2]`, `b`]."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _expand_range(expr: str, body: str) -> list[str]:
    out: list[str] = []
    for item in body.split(","):
        item = item.strip()
        m = _RANGE.match(item)
        if not m:
            raise HostlistError(f"hostlist {expr!r}: bad range {item!r}",
                                "write ranges as [01-04,07] or [1-9/2] (digits only)")
        lo_s, hi_s, step_s = m.groups()
        if hi_s is None:
            out.append(lo_s)
            continue
        lo, hi, step = int(lo_s), int(hi_s), int(step_s or 1)
        if hi < lo or step < 1:
            raise HostlistError(f"hostlist {expr!r}: empty range {item!r}", "the first number must be <= the second")
        if (hi - lo) // step + 1 > MAX_HOSTS:
            raise HostlistError(f"hostlist {expr!r}: range {item!r} has more than {MAX_HOSTS} hosts",
                                "split the sweep or fix the typo")
        width = len(lo_s) if lo_s.startswith("0") and len(lo_s) > 1 else 0
        out.extend(str(n).zfill(width) for n in range(lo, hi + 1, step))
    return out


def expand_one(expr: str) -> list[str]:
    """One expression without top-level commas -> host names, in order."""
    pieces: list[list[str]] = []
    pos = 0
    while pos < len(expr):
        start = expr.find("[", pos)
        close = expr.find("]", pos)
        if start < 0:
            if close >= 0:
                raise HostlistError(f"hostlist {expr!r}: ']' without '['", "check the brackets")
            pieces.append([expr[pos:]])
            break
        if 0 <= close < start:
            raise HostlistError(f"hostlist {expr!r}: ']' without '['", "check the brackets")
        end = expr.find("]", start)
        if end < 0:
            raise HostlistError(f"hostlist {expr!r}: '[' is never closed", "add the missing ']'")
        if "[" in expr[start + 1:end]:
            raise HostlistError(f"hostlist {expr!r}: nested '['", "brackets cannot nest; write a[1-2]b[3-4]")
        pieces.append([expr[pos:start]])
        pieces.append(_expand_range(expr, expr[start + 1:end]))
        pos = end + 1
    total = 1
    for p in pieces:
        total *= len(p)
    if total > MAX_HOSTS:
        raise HostlistError(f"hostlist {expr!r} expands to {total} hosts (limit {MAX_HOSTS})",
                            "split the sweep or fix the typo")
    hosts = ["".join(combo) for combo in itertools.product(*pieces)]
    for h in hosts:
        if not h or any(c.isspace() for c in h):
            raise HostlistError(f"hostlist {expr!r}: empty or blank host name", "remove stray spaces and commas")
    return hosts


def expand(expr: str) -> list[str]:
    """A full expression (top-level commas allowed) -> host names, duplicates removed, order kept."""
    if expr.count("[") != expr.count("]"):
        raise HostlistError(f"hostlist {expr!r}: unbalanced brackets", "every '[' needs its ']'")
    hosts: list[str] = []
    for part in split_top_level(expr):
        hosts.extend(expand_one(part))
    if not hosts:
        raise HostlistError(f"hostlist {expr!r} names no host", "e.g. node[001-168]")
    return list(dict.fromkeys(hosts))


def fold(hosts: Iterable[str]) -> str:
    """Hosts -> a compact expression (`node[001-003,007],login1`), for display.

    Names are grouped on their LAST number (prefix, width, suffix), as
    ClusterShell's fold does for one-dimensional sets; `expand(fold(h))`
    gives `h` back as a set.
    """
    names = list(dict.fromkeys(hosts))
    parsed = {h: _SPLIT.match(h) for h in names}
    padded = {(m.group(1), len(m.group(2)), m.group(3)) for m in parsed.values()
              if m and m.group(2).startswith("0") and len(m.group(2)) > 1}
    groups: dict[tuple[str, int, str], list[int]] = {}
    order: list[tuple[str, int, str] | str] = []
    for h in names:
        m = parsed[h]
        if not m:
            order.append(h)
            continue
        prefix, digits, suffix = m.groups()
        # node10 joins node01..node09 (same width); node1 and node100 go unpadded
        width = len(digits) if (prefix, len(digits), suffix) in padded else 0
        key = (prefix, width, suffix)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(digits))
    out = []
    for key in order:
        if isinstance(key, str):
            out.append(key)
            continue
        prefix, width, suffix = key
        nums = sorted(set(groups[key]))
        if len(nums) == 1:
            out.append(f"{prefix}{str(nums[0]).zfill(width)}{suffix}")
            continue
        runs, lo, prev = [], nums[0], nums[0]
        for n in nums[1:] + [None]:  # type: ignore[list-item]
            if n is not None and n == prev + 1:
                prev = n
                continue
            a, b = str(lo).zfill(width), str(prev).zfill(width)
            runs.append(a if lo == prev else f"{a}-{b}")
            if n is not None:
                lo = prev = n
        out.append(f"{prefix}[{','.join(runs)}]{suffix}")
    return ",".join(out)
