"""ROCm's release notes' documented wrong-result bugs (data known_wrong_results): which apply to a release and
its GPUs, and which a job's log ties to the job.

A node shows the libraries a job maps in /proc/PID/maps; a ticket shows only the release and GPU it states and the
job's log. Both readings (wrong.known_issues, wrong.known_issues_stated) pick the bugs here, so they agree.
"""

from __future__ import annotations

import re
from typing import Any

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")


def log_line_naming(text: Any, libs: Any) -> dict[str, Any] | None:
    """The first line of a job's log that names one of a release-note bug's libraries (`librocsparse` is found
    as librocsparse or the word rocsparse, in any case): `{lineno, line, name}`, or None. A ticket has no /proc
    maps, so the log naming the library (a traceback through it, its own error) is what ties the job to it."""
    names = [str(n)[3:] if str(n).startswith("lib") else str(n) for n in (libs or ())]
    if not text or not names:
        return None
    word = re.compile(r"(?<![A-Za-z0-9])(?:lib)?(?:" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9])",
                      re.IGNORECASE)
    for lineno, line in enumerate(str(text).splitlines(), 1):
        m = word.search(line)
        if m:
            return {"lineno": lineno, "line": line.strip()[:200], "name": m.group(0)}
    return None


def documented_wrong_results(issues: Any, rocm: Any, targets: Any, gpu_count: Any) -> list[dict[str, Any]]:
    """The release-note bugs (data known_wrong_results' `issues`) that apply to ROCm `rocm` ('6.2.0') on GPUs of
    these gfx_target_versions, in a node or ticket with `gpu_count` GPUs: listed as a known issue of the release's
    series, fixed in a later release (`before`), or with both a release of that series older than the fix; a bug
    limited to some GPUs applies only where one of the GPUs is known and in its range. Shared by the node's check and the ticket's, so both read the table alike."""
    m = _VERSION.match(str(rocm or ""))
    if not m:
        return []
    key = [int(x) for x in m.groups(default="0")]
    series = f"{key[0]}.{key[1]}"
    known = [int(t) for t in (targets or ()) if t is not None]
    out = []
    for item in issues or ():
        before = _VERSION.match(str(item.get("before") or ""))
        in_series = series in (item.get("series") or ()) if item.get("series") else None
        older = key < [int(x) for x in before.groups(default="0")] if before is not None else None
        tests = [t for t in (in_series, older) if t is not None]  # both given: 5.2.0-5.2.2 for a 5.2 bug fixed in 5.2.3
        affected = bool(tests) and all(tests)
        ranges = item.get("targets") or []
        on_gpu = not ranges or any(lo <= t <= hi for lo, hi in ranges for t in known)
        if affected and on_gpu and int(item.get("gpus_min") or 0) <= int(gpu_count or 0):
            out.append(item)
    return out
