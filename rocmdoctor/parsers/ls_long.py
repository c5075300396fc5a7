"""`ls -l` / `ls -la` text of device nodes, as tickets paste it (`ls -la /dev/kfd /dev/dri`).

Tickets show /dev/kfd and /dev/dri this way far more often than `stat`; the mode, owner and
group in it are what the device checks need. GNU coreutils' long format: a type letter and
nine permission characters (an optional `.`/`+` for SELinux context / ACL), the link count,
owner, group, then either `major, minor` (device nodes) or a size, a date of three fields,
and the name. `DIR:` lines open a directory's section (names in it are relative to DIR);
`total N` lines are skipped. A pasted prompt line naming one path (`$ ls -la /dev | grep kfd`,
ROCm/ROCT-Thunk-Interface#36) also opens that path's section: the names printed after it are
relative to it. Source: tests/fixtures/outputs/ls/SOURCES.md.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_TYPES = {"c": "character special file", "b": "block special file", "d": "directory",
          "l": "symbolic link", "-": "regular file", "p": "fifo", "s": "socket"}
# "$ ls -la /dev | grep kfd", "# ls -l /dev/dri": the shell prompt, ls, options, one path
_PROMPT = re.compile(r"^[$#]\s*(?:sudo\s+)?ls(?:\s+-\w+)*\s+(?P<path>/\S*)\s*(?:\|.*)?$")
_ENTRY = re.compile(
    r"^(?P<type>[-bcdlps])(?P<perm>[-rwxsStT]{9})[.+@]?\s+(?P<links>\d+)\s+(?P<owner>\S+)\s+(?P<group>\S+)\s+"
    r"(?:(?P<major>\d+),\s*(?P<minor>\d+)|(?P<size>\d+[KMGTP]?))\s+"
    r"(?P<date>\S+\s+\S+\s+\S+)\s(?P<name>.+?)(?: -> (?P<target>.+))?$")


def _octal_mode(perm: str) -> str:
    """`rw-rw-rw-` -> "666" (set-id and sticky bits are not needed by any check: dropped)."""
    digits = []
    for i in range(0, 9, 3):
        r, w, x = perm[i:i + 3]
        digits.append(str((r == "r") * 4 + (w == "w") * 2 + (x in "xst") * 1))
    return str(int("".join(digits)))     # as `stat -c %a` prints it: 660, 666, 0


@parser("ls_long")
def parse_ls_long(text: str) -> dict[str, dict[str, Any]]:
    """path -> {type, mode (octal string as `stat -c %a`), owner, group, links, major, minor}.

    uid/gid are not in `ls -l` (names are): they are left out, never guessed. Raises ParseError
    when no line is an `ls -l` entry.
    """
    out: dict[str, dict[str, Any]] = {}
    directory = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("total "):
            continue
        if line.endswith(":") and line.startswith("/") and " " not in line:
            directory = line[:-1]
            continue
        prompt = _PROMPT.match(line)
        if prompt:
            directory = prompt.group("path").rstrip("/") or "/"
            continue
        m = _ENTRY.match(line)
        if not m:
            continue
        name = m.group("name")
        if name in (".", ".."):
            continue
        path = name if name.startswith("/") or not directory else posixpath.join(directory, name)
        entry: dict[str, Any] = {"type": _TYPES[m.group("type")], "mode": _octal_mode(m.group("perm")),
                                 "owner": m.group("owner"), "group": m.group("group"), "links": int(m.group("links"))}
        if m.group("major") is not None:
            entry["major"], entry["minor"] = int(m.group("major")), int(m.group("minor"))
        if m.group("target"):
            entry["target"] = m.group("target")
        out[posixpath.normpath(path)] = entry
    if not out:
        raise ParseError("no `ls -l` entry (expected lines like `crw-rw---- 1 root render 226, 128 ... renderD128`)")
    return out
