"""Kernel-log lines of amdgpu/amdkfd bugs a later kernel fixed (data amdgpu_fixed_bugs), and whether the
running kernel carries the fix.

A GPU hang or an oops in amdgpu reads like a hardware fault until one knows it is a driver bug that a
stable release fixed. The data quotes each bug's log lines as its source printed them (the kernel CVE
team's records quote the fixing commit's message); the matching here keeps what identifies the bug
(function names of the trace, amdgpu's own messages) and drops what differs between machines (offsets,
addresses, pids).
"""

from __future__ import annotations

import re
from typing import Any

_FRAME = re.compile(r"^(?:RIP: [0-9a-f]{4}:)?(?P<sym>[A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+")
_NUMBER = re.compile(r"\b(?:0x)?[0-9a-f]*\d[0-9a-f]*\b")
# lines any oops prints: they support a match but never make one
_GENERIC = re.compile(r"^(?:BUG: |WARNING: |refcount_t: |general protection fault|divide error|INFO: task |Workqueue: |"
                      r"Call Trace|Oops|Hardware name|Modules linked)")
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")
# distribution kernels whose third number is their own build, not the upstream stable release: Ubuntu and
# Debian "6.8.0-45-generic", RHEL/Alma/Rocky "5.14.0-427.el9", SUSE "6.4.0-150600.23-default"
_DISTRO_BUILD = re.compile(r"^\d+\.\d+\.0-\d+|\.el\d|-default$|-azure$|-aws$|-gcp$|-oracle$")


def _key(line: str) -> tuple[str, bool] | None:
    """What of a quoted line a log must show: a trace frame's function name (True), else the message up to
    its first number (False); None for a line too generic to mean anything alone."""
    text = line.strip()
    frame = _FRAME.match(text)
    if frame:
        return frame.group("sym"), True
    cut = _NUMBER.split(text, maxsplit=1)[0].strip()
    return (cut, False) if len(cut) >= 12 else None


def known_bug_matches(text: Any, entries: Any) -> list[dict[str, Any]]:
    """The entries whose lines `text` (a kernel log) shows: at least two of its keys, one of them a trace frame
    that is not a generic line; an entry without frames (a message-only bug) needs every message. Each match
    carries the log lines that matched, in log order."""
    log = str(text or "")
    lines = log.splitlines()
    out = []
    for entry in entries or []:
        keys = [k for k in (_key(x) for x in entry.get("lines") or []) if k and not _GENERIC.match(k[0])]
        found = [(k, frame) for k, frame in keys if k in log]
        frames = [k for k, frame in keys if frame]
        enough = (len(found) >= 2 and any(frame for _, frame in found)) if frames else (keys and len(found) == len(keys))
        if not enough:
            continue
        wanted = [k for k, _ in found]
        quoted = [ln.strip() for ln in lines if any(k in ln for k in wanted)][:6]
        out.append({**dict(entry), "matched": quoted})
    return out


def _version(text: str) -> tuple[int, int, int] | None:
    m = _VERSION.match(str(text or ""))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


def kernel_fix_status(release: Any, fixed_in: Any, introduced_in: Any = ()) -> dict[str, Any]:
    """Whether kernel `release` (`uname -r`) carries a fix released in `fixed_in` (the mainline release "6.19"
    and first fixed stable releases "6.12.69"): `{status, fix}` with status `fixed`, `predates` (older than the
    release that brought the bug, in `fix`), `affected` (with `fix` the release to move to), `distribution` (a vendor build whose number says nothing of upstream stable fixes:
    `fix` names the upstream releases to look for in its changelog) or `unknown` (no release)."""
    fixes = [f for f in (str(x) for x in fixed_in or []) if _version(f)]
    mainline = sorted(v for v in (_version(f) for f in fixes if f.count(".") == 1) if v)
    first_mainline = mainline[0] if mainline else None
    run = _version(str(release or ""))
    if run is None:
        return {"status": "unknown", "fix": ", ".join(fixes)}
    if first_mainline and run[:2] >= first_mainline[:2]:
        return {"status": "fixed", "fix": ".".join(map(str, first_mainline[:2]))}
    if _DISTRO_BUILD.search(str(release)):
        return {"status": "distribution", "fix": ", ".join(fixes)}
    intro = sorted(v for v in (_version(str(x)) for x in introduced_in or []) if v)
    if intro and run < intro[0]:
        return {"status": "predates", "fix": ".".join(map(str, intro[0]))}
    same_series = [f for f in fixes if f.count(".") == 2 and _version(f)[:2] == run[:2]]  # type: ignore[index]
    if same_series:
        fix = same_series[0]
        return {"status": "fixed" if run >= _version(fix) else "affected", "fix": fix}  # type: ignore[operator]
    # no stable fix for this series: the mainline release is the way out
    return {"status": "affected", "fix": ".".join(map(str, first_mainline[:2])) if first_mainline else ", ".join(fixes)}
