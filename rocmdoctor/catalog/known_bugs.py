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


#: a frame in the driver itself: the crash site a bug is known by (a generic kernel frame such as
#: _raw_spin_lock_irqsave or mmput is where many unrelated oopses land too)
DRIVER_FRAME = re.compile(r"amdgpu|amdkfd|kfd_|svm_range|gfx_v\d|gmc_v\d|sdma_v\d|mes_v\d|smu_v?\d|amd_sched|drm_sched|"
                          r"\bdc_|\bdm_|dcn\d|amddrm")


def _key(line: str) -> tuple[str, bool] | None:
    """What of a quoted line a log must show: a trace frame's function name (True), else the message up to
    its first number (False); None for a line too short to mean anything alone."""
    text = line.strip()
    frame = _FRAME.match(text)
    if frame:
        return frame.group("sym"), True
    cut = _NUMBER.split(text, maxsplit=1)[0].strip()
    return (cut, False) if len(cut) >= 12 else None


_CRASH_AT = re.compile(r"^RIP: [0-9a-f]{4}:(?P<sym>[A-Za-z_][\w.]*)\+0x|^WARNING: .* at \S+ (?P<wsym>[A-Za-z_][\w.]*)\+0x"
                       r"|^BUG: KASAN: [\w-]+ in (?P<ksym>[A-Za-z_][\w.]*)\+0x")


def _crash_at(entry_lines: list[str]) -> str | None:
    """The function a quoted trace names as where it crashed or warned (the RIP line, "WARNING: ... at
    file:line func+0x..", KASAN's "BUG: KASAN: ... in func+0x.."), or None."""
    at = (_CRASH_AT.match(x.strip()) for x in entry_lines)
    return next((m.group("sym") or m.group("wsym") or m.group("ksym") for m in at if m), None)


def _frames(entry_lines: list[str]) -> list[str]:
    return [m.group("sym") for m in (_FRAME.match(x.strip()) for x in entry_lines) if m]


def _site(entry_lines: list[str]) -> str | None:
    """The function a bug is known by: where it crashed or warned when that is the driver's own code, else the
    first driver frame of its trace."""
    crash = _crash_at(entry_lines)
    if crash and DRIVER_FRAME.search(crash):
        return crash
    frames = _frames(entry_lines)
    return next((f for f in frames if DRIVER_FRAME.search(f)), crash or (frames[0] if frames else None))


def _crash(entry_lines: list[str]) -> str | None:
    """Where a bug's quoted trace stopped when that is not the driver's own code (the crash line's function, else
    the first frame), or None when it stopped in the driver."""
    crash = _crash_at(entry_lines) or next(iter(_frames(entry_lines)), None)
    return crash if crash and not DRIVER_FRAME.search(crash) else None


def known_bug_matches(text: Any, entries: Any) -> list[dict[str, Any]]:
    """The entries whose lines `text` (a kernel log) shows: the bug's crash site (`_site`) and
    at least three of its lines in all (every line where it quotes fewer); an entry without a trace (a
    message-only bug) needs every message. Generic oops lines ("BUG: kernel NULL pointer dereference") count
    toward the three but never make a match alone. Each match carries the log lines that matched, in log order."""
    log = str(text or "")
    lines = log.splitlines()
    out = []
    for entry in entries or []:
        quoted = list(entry.get("lines") or [])
        keys = [k for k in (_key(x) for x in quoted) if k]
        site = _site(quoted)
        found = [k for k, _ in keys if k in log]
        # a bug that crashed in a generic kernel function (__mutex_lock) is known by that function with its
        # driver caller: the caller alone is on the way to many other crashes (an oops elsewhere in the same ioctl)
        crash = _crash(quoted)
        if site is not None:
            enough = site in log and len(found) >= min(3, len(keys)) and (crash is None or crash in log)
        else:
            specific = [k for k, _ in keys if not _GENERIC.match(k)]
            enough = bool(specific) and all(k in log for k in specific)
        if not enough:
            continue
        out.append({**dict(entry), "matched": [ln.strip() for ln in lines if any(k in ln for k in found)][:6]})
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


# The kernel's oops headers (arch/x86/mm/fault.c show_fault_oops / page_fault_oops, lib/bug.c
# report_bug, arch/x86/kernel/traps.c): the kernel itself stopped on a bad access or a failed
# assertion. A WARNING is left out: a WARN_ON also fires on states the hardware puts the driver in.
_OOPS_HEAD = re.compile(r"(?P<kind>BUG: kernel NULL pointer dereference|BUG: unable to handle page fault|"
                        r"BUG: unable to handle kernel (?:NULL pointer dereference|paging request)|"
                        r"general protection fault|kernel BUG at (?P<file>[^\s!]{1,200})!)")
# the crash site in an amdgpu-family module: the in-tree amdgpu (amdkfd is built into it) and the DKMS
# package's own modules (amdttm, amdkcl, amd-sched, amdxcp, amddrm_*)
# (also the "IP:" line kernels before 4.17 printed right after a bad access's header, show_fault_oops:
# "IP: sym+off/len [module]", before 4.10 with the address first, "IP: [<ffffffff...>] sym+off/len")
_OOPS_RIP = re.compile(r"(?:RIP: [0-9a-f]{4}:|(?<![\w:])IP: (?:\[<[0-9a-f]{8,16}>\] )?)(?P<sym>[A-Za-z_][\w.]{0,120})"
                       r"\+0x[0-9a-f]+/0x[0-9a-f]+ "
                       r"\[(?P<module>amdgpu|amdkfd|amdttm|amdkcl|amd_sched|amdxcp|amddrm\w{0,30})\]")
_AMD_SOURCE = re.compile(r"(?:^|/)(?:drivers/gpu/drm/)?amd/(?:amdgpu|amdkfd|display|pm|amdkcl)/")
_OOPS_WINDOW = 40   # lines from an oops header to its RIP line (registers, Code:, taint line in between)
# a crash in a DRM core helper the driver called (drm_gem_object_free on a BO amdgpu created without its
# GEM functions): the helper is where it stopped, the driver's call is what the trace blames
_CORE_RIP = re.compile(r"RIP: [0-9a-f]{4}:(?P<sym>[A-Za-z_][\w.]{0,120})\+0x[0-9a-f]+/0x[0-9a-f]+ "
                       r"\[(?P<module>drm|ttm|drm_kms_helper|drm_ttm_helper|gpu_sched|drm_exec|drm_buddy)\]")
# a call-trace frame; "? " marks one the unwinder only guessed (arch/x86/kernel/dumpstack.c printk_stack_address)
_TRACE_FRAME = re.compile(r"^\s*(?:\[[\s\d.]+\]\s*)?(?P<guess>\? )?(?P<sym>[A-Za-z_][\w.]{0,120})"
                          r"\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[(?P<module>\w+)\])?")
_AMD_MODULE = re.compile(r"^(?:amdgpu|amdkfd|amdttm|amdkcl|amd_sched|amdxcp|amddrm\w{0,30})$")


def _amd_caller(lines: list[str]) -> tuple[str, str] | None:
    """The first reliable frame of the oops's call trace, when it is in an amdgpu-family module."""
    seen_trace = False
    for line in lines:
        if "Call Trace:" in line:
            seen_trace = True
            continue
        m = _TRACE_FRAME.match(line) if seen_trace else None
        if m is None or m["guess"]:
            continue
        return (m["sym"], m["module"]) if m["module"] and _AMD_MODULE.match(m["module"]) else None
    return None


def amdgpu_oops(text: Any) -> dict[str, Any] | None:
    """The first oops a kernel log shows whose crash site is amdgpu's own code: the kernel stopped inside
    the driver (a NULL pointer, a bad address, a BUG_ON in an amdgpu source file). That is a driver bug
    whatever the GPU did, even when no known fixed bug matches its lines. `{kind, site, module, lines}`
    with `site` the function of the RIP line (or the source file of "kernel BUG at"), or None."""
    lines = str(text or "").splitlines()
    for i, line in enumerate(lines):
        head = _OOPS_HEAD.search(line)
        if not head:
            continue
        bug_file = head.group("file")
        for follow in lines[i + 1:i + 1 + _OOPS_WINDOW]:
            if _OOPS_HEAD.search(follow):
                break
            rip = _OOPS_RIP.search(follow)
            if rip or (bug_file and _AMD_SOURCE.search(bug_file) and "RIP: " in follow):
                kind = "kernel BUG" if bug_file else head.group("kind").removeprefix("BUG: ")
                site = rip.group("sym") if rip else bug_file
                return {"kind": kind, "site": site, "module": rip.group("module") if rip else "amdgpu",
                        "file": bug_file, "lines": [line.strip(), follow.strip()]}
            core = _CORE_RIP.search(follow)
            caller = _amd_caller(lines[i + 1:i + 1 + 2 * _OOPS_WINDOW]) if core else None
            if core and caller:
                return {"kind": head.group("kind").removeprefix("BUG: "),
                        "site": f"{core.group('sym')} called from {caller[0]}", "module": caller[1],
                        "file": None, "lines": [line.strip(), follow.strip()]}
            if "RIP: " in follow:
                break   # this oops crashed elsewhere
    return None

