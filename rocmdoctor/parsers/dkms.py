"""`dkms status`: which out-of-tree module versions are built/installed for which kernel.

Two line formats exist. dkms 2.x: `amdgpu, 6.2.4-1652687.22.04, 5.15.0-91-generic,
x86_64: installed`; dkms 3.x: `amdgpu/6.8.5-2041575.22.04, 6.8.0-45-generic,
x86_64: installed`. A module only added has no kernel/arch (`amdgpu/6.8.5: added`).
The status may carry warnings in parentheses (`installed (WARNING! Diff between
built and installed module!)`), and dkms prints `Error! ...` lines for a broken
tree (e.g. `Error! Could not locate dkms.conf file.` followed by `File:
/var/lib/dkms/amdgpu/6.7.0-1787201.22.04/source/dkms.conf does not exist.`,
ROCm/legacy-rocm-build#3608, #3701: a version directory an upgrade or removal left
behind; dkms takes every directory under /var/lib/dkms/MODULE/ for a source tree).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_WARN = re.compile(r"\s*\((WARNING!?[^)]*|[^)]*)\)")
_ERROR = re.compile(r"^(?:Error!|Warning:|Error:|WARNING:)\s*(?P<msg>.*)$", re.IGNORECASE)
# the version is a path component a remediation may remove: no `.`/`..`, no shell or glob characters
_NO_CONF = re.compile(r"File: (?P<tree>/var/lib/dkms/(?P<module>[A-Za-z0-9][\w.+-]*)/"
                      r"(?P<version>[A-Za-z0-9][\w.+~-]*))/source/dkms\.conf does not exist")


def stale_tree(text: str) -> dict[str, str] | None:
    """`{tree, module, version}` of the version directory a `... source/dkms.conf does not
    exist` line names (dkms's own output and installers that pass it on), else None."""
    m = _NO_CONF.search(text) if "dkms.conf" in text else None
    return {"tree": m["tree"], "module": m["module"], "version": m["version"]} if m else None


def _tree_fields(message: str) -> dict[str, Any]:
    t = stale_tree(message) or {}
    return {"tree": t.get("tree"), "tree_module": t.get("module"), "tree_version": t.get("version")}


def _split_status(rest: str) -> tuple[str, list[str]]:
    warnings = [w.group(1).strip() for w in _WARN.finditer(rest)]
    status = _WARN.sub("", rest).strip()
    return status, warnings


@parser("dkms_status")
def parse_dkms_status(text: str) -> list[dict[str, Any]]:
    """Entries of `dkms status` (dkms 2.x comma form and 3.x slash form), plus its error lines.

    Returns `[{module, version, kernel, arch, status, warnings, message}]`:
    `kernel`/`arch` are None for `added` modules; `warnings` lists the
    parenthesised notes after the status; an `Error!`/`Warning:` line becomes
    `{module: None, status: "error"|"warning", message: ...}` (its continuation
    lines are appended to the message), with `tree`/`tree_module`/`tree_version`
    set when the message names a version directory without its dkms.conf (None
    otherwise). Empty text means no DKMS modules.
    Raises ParseError on any other line.
    """
    out: list[dict[str, Any]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        err = _ERROR.match(line)
        if err:
            level = "warning" if line.lower().startswith("warning") else "error"
            out.append({"module": None, "version": None, "kernel": None, "arch": None,
                        "status": level, "warnings": [], "message": err.group("msg"),
                        **_tree_fields(err.group("msg"))})
            continue
        head, sep, rest = line.rpartition(": ")
        if not sep or ("," not in head and "/" not in head):
            if out and out[-1]["module"] is None:   # continuation of an Error! message
                out[-1]["message"] += " " + line
                out[-1].update(_tree_fields(out[-1]["message"]))
                continue
            raise ParseError(f"line {lineno} is not a `dkms status` line: {line[:60]!r}")
        fields = [f.strip() for f in head.split(",")]
        if "/" in fields[0]:
            module, version = fields[0].split("/", 1)
            tail = fields[1:]
        elif len(fields) >= 2:
            module, version = fields[0], fields[1]
            tail = fields[2:]
        else:
            raise ParseError(f"line {lineno} has no module version: {line[:60]!r}")
        if len(tail) not in (0, 2):
            raise ParseError(f"line {lineno}: expected `<kernel>, <arch>` after the version: {line[:60]!r}")
        status, warnings = _split_status(rest)
        out.append({
            "module": module,
            "version": version,
            "kernel": tail[0] if tail else None,
            "arch": tail[1] if tail else None,
            "status": status,
            "warnings": warnings,
            "message": None,
            "tree": None, "tree_module": None, "tree_version": None,
        })
    return out
