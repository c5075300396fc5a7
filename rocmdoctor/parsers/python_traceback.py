"""A Python traceback on a tool's standard error: which files the failing import went
through, and the exception it ended in.

amd-smi (and rocm-smi before it) is a Python program: when it cannot start it prints a
traceback, not an error of its own, and the paths in its frames say which copy of each
piece was loaded (the CLI under /opt/rocm-X/libexec/amdsmi_cli, the `amdsmi` package from
a site-packages, libamd_smi.so in the exception). Format: CPython's Lib/traceback.py
(`Traceback (most recent call last):`, `  File "PATH", line N, in NAME`, the source line
and, from 3.11, caret lines indented under it, then `Type: message`; chained exceptions
joined by "During handling of the above exception, another exception occurred:" or "The
above exception was the direct cause of the following exception:"). Real output:
ROCm/amdsmi#186 (amd-smi importing an amdsmi package of another ROCm release) and
ROCm/TheRock#2440 (Python 3.12 caret lines).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_HEADER = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s{1,8}File "(?P<file>[^"]{1,1000})", line (?P<line>\d{1,9})(?:, in (?P<func>\S{1,200}))?\s*$')
#: `AttributeError: ...`, `amdsmi.amdsmi_exception.AmdSmiLibraryException: ...`, or a bare name
_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]{0,200}?)(?::\s?(?P<message>.*))?$")
#: a bare exception line outside any traceback (a ticket quoting only the last line)
_BARE = re.compile(r"^(?P<type>[A-Za-z_][\w.]{0,200}?(?:Error|Exception)): (?P<message>.*)$")


@parser("python_traceback")
def parse_python_traceback(text: str) -> dict[str, Any]:
    """The last traceback in the text (a tool's stderr), or its last bare exception line.

    Returns `{exception, message, line, frames: [{file, line, func}], chained}`:
    `exception` the type as printed (None when the text holds no traceback: a tool that
    started), `message` what follows `Type: `, `line` the exception line as printed,
    `frames` those of the traceback that raised it (outermost first), `chained` how many
    tracebacks the text holds. Never raises: text without a traceback is a tool that did
    not crash.
    """
    out: dict[str, Any] = {"exception": None, "message": None, "line": None, "frames": [], "chained": 0}
    frames: list[dict[str, Any]] = []
    in_tb = False
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.strip() == _HEADER:
            in_tb, frames = True, []
            out["chained"] += 1
            continue
        if in_tb:
            m = _FRAME.match(line)
            if m:
                frames.append({"file": m["file"], "line": int(m["line"]), "func": m["func"]})
                continue
            if not line or line[0] in " \t":
                continue  # the frame's source line, carets, or a blank line
            e = _EXCEPTION.match(line)
            if e:
                out.update(exception=e["type"], message=e["message"], line=line, frames=frames)
            in_tb = False
            continue
        b = _BARE.match(line.strip())
        if b and out["chained"] == 0:
            out.update(exception=b["type"], message=b["message"], line=line.strip())
    return out
