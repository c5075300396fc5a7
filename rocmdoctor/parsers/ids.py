"""`id` output and /etc/group: which groups a user is in, and who is in a group.

GPU access on ROCm needs the `render` (and on older distributions `video`)
group for /dev/kfd and /dev/dri/renderD*; both files answer "is alice in it".
`id` format (coreutils): `uid=1000(alice) gid=1000(alice) groups=1000(alice),44(video)`,
optionally followed by ` context=...` under SELinux.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_ID = re.compile(r"^uid=(?P<uid>\d+)(?:\((?P<user>[^)]*)\))? gid=(?P<gid>\d+)(?:\((?P<group>[^)]*)\))?"
                 r"(?: groups=(?P<groups>\S+))?(?: context=(?P<context>\S+))?\s*$")
_GROUP = re.compile(r"(?P<gid>\d+)(?:\((?P<name>[^)]*)\))?")


@parser("id")
def parse_id(text: str) -> dict[str, Any]:
    """The user and groups from one line of `id [user]` output.

    Returns `{uid: int, user: str|None, gid: int, group: str|None,
    groups: [{gid: int, name: str|None}], group_names: [str]}` (a name is None
    when `id` could only print the number). Raises ParseError otherwise.
    """
    line = text.strip()
    m = _ID.match(line)
    if not m:
        raise ParseError(f"not `id` output: {line[:60]!r}")
    groups = []
    for part in (m.group("groups") or "").split(","):
        if not part:
            continue
        g = _GROUP.fullmatch(part)
        if not g:
            raise ParseError(f"bad group entry in `id` output: {part!r}")
        groups.append({"gid": int(g.group("gid")), "name": g.group("name")})
    return {
        "uid": int(m.group("uid")),
        "user": m.group("user"),
        "gid": int(m.group("gid")),
        "group": m.group("group"),
        "groups": groups,
        "group_names": [g["name"] for g in groups if g["name"]],
    }


@parser("etc_group")
def parse_etc_group(text: str) -> dict[str, dict[str, Any]]:
    """/etc/group entries by group name.

    Returns `{name: {gid: int, members: [str]}}` (supplementary members only:
    users whose primary group it is are not listed in /etc/group). Comment and
    NIS `+`/`-` lines are skipped. Raises ParseError on a line without the
    four `name:password:gid:members` fields.
    """
    out: dict[str, dict[str, Any]] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#") or line[0] in "+-":
            continue
        parts = line.split(":")
        if len(parts) != 4 or not parts[2].isdigit():
            raise ParseError(f"line {lineno} is not an /etc/group entry: {line[:60]!r}")
        out[parts[0]] = {"gid": int(parts[2]), "members": [m for m in parts[3].split(",") if m]}
    return out


@parser("groups")
def parse_groups(text: str) -> dict[str, Any]:
    """`groups` (the caller's group names: `root video render`) or `groups USER`
    (`alice : alice video render`), as tickets paste it: `{user: str|None, groups: [str]}`.
    Names only: `groups` prints no ids. Raises ParseError on empty text or a name with
    characters no group name has."""
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    user = None
    if " : " in line:
        user, line = (part.strip() for part in line.split(" : ", 1))
    names = line.split()
    if not names or not all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.$-]*", n) for n in names):
        raise ParseError(f"not `groups` output: {text.strip()[:60]!r}")
    return {"user": user, "groups": names}
