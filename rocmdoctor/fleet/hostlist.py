"""Hostlist expressions as Slurm and ClusterShell write them, and folding back, on ClusterShell's NodeSet.

`node[001-168]`, `gpu[01-04,07]-ib`, `rack[1-2]-n[01-03]` (several brackets), `n[1-9/2]`
(steps), comma lists at the top level (`a,b[1-2],c`), ClusterShell's set operators
(`node[001-168]!node[005-010]` excludes, `&` intersects, `^` xors) and `@group` names
resolved by ClusterShell's own groups configuration (/etc/clustershell/groups.conf,
groups.d/*.yaml), so a sweep names nodes exactly as `clush -w` does. Expansion is capped so a
typo such as `n[1-99999999]` is a clear error, not an out-of-memory: NodeSet counts without
expanding.

Order: the top-level comma parts keep the order written; inside one part NodeSet's order
(sorted by pattern and index), as clush prints them.
"""

from __future__ import annotations

from typing import Iterable

from rocmdoctor.errors import RocmdoctorError

MAX_HOSTS = 100_000


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


def _nodeset(expr: str, part: str):  # type: ignore[no-untyped-def]
    from ClusterShell.NodeSet import NodeSet, NodeSetParseError
    from ClusterShell.NodeUtils import GroupResolverError

    if any(c.isspace() for c in part):
        raise HostlistError(f"hostlist {expr!r}: blank in a host name", "remove stray spaces")
    try:
        ns = NodeSet(part)
    except NodeSetParseError as exc:
        raise HostlistError(f"hostlist {expr!r}: {exc}",
                            "write ranges as node[01-04,07] or n[1-9/2]; exclude with node[1-9]!node5") from None
    except GroupResolverError as exc:
        raise HostlistError(f"hostlist {expr!r}: {exc}",
                            "define the group in /etc/clustershell/groups.d/*.yaml (see `nodeset -LL`)") from None
    if "@" in part and len(ns) == 0:
        raise HostlistError(f"hostlist {expr!r}: group {part!r} is empty or not defined in ClusterShell's groups",
                            "define it in /etc/clustershell/groups.d/*.yaml; `nodeset -LL` lists the known groups")
    if len(ns) > MAX_HOSTS:
        raise HostlistError(f"hostlist {expr!r} expands to {len(ns)} hosts (limit {MAX_HOSTS})",
                            "split the sweep or fix the typo")
    return ns


def expand_one(expr: str) -> list[str]:
    """One expression without top-level commas -> host names."""
    return list(_nodeset(expr, expr))


def expand(expr: str) -> list[str]:
    """A full expression (top-level commas allowed) -> host names, duplicates removed, order kept."""
    if expr.count("[") != expr.count("]"):
        raise HostlistError(f"hostlist {expr!r}: unbalanced brackets", "every '[' needs its ']'")
    hosts: list[str] = []
    for part in split_top_level(expr):
        hosts.extend(_nodeset(expr, part))
        if len(hosts) > MAX_HOSTS:
            raise HostlistError(f"hostlist {expr!r} expands to more than {MAX_HOSTS} hosts",
                                "split the sweep or fix the typo")
    if not hosts:
        raise HostlistError(f"hostlist {expr!r} names no host", "e.g. node[001-168]")
    return list(dict.fromkeys(hosts))


def fold(hosts: Iterable[str]) -> str:
    """Hosts -> a compact expression (`node[001-003,007],login1`), for display, as `nodeset -f` folds them."""
    from ClusterShell.NodeSet import NodeSet

    names = [h for h in dict.fromkeys(hosts) if h]
    return str(NodeSet.fromlist(names)) if names else ""
