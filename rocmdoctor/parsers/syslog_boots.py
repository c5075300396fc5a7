"""rsyslog's kernel lines (/var/log/kern.log, /var/log/messages) split into boots.

A node that crashed is triaged after its reboot, and the answer is in the boot before.
`journalctl -k -b -1` has it only with a persistent journal; RHEL-family HPC images keep a
volatile one and the kernel's lines of earlier boots only in rsyslog's /var/log/messages
(Debian/Ubuntu: /var/log/kern.log; ROCm/ROCm#5259's ticket quotes the syslog copy). Those
files run on across reboots, so the previous boot is found between boundaries:

- the kernel's first line of a boot, `Linux version <release> (...)` (init/version.c
  linux_banner), with the kernel's stamp on Ubuntu (`kernel: [    0.000000] Linux version ...`)
  and without it on RHEL (`kernel: Linux version 4.18.0-193.19.1.el8_2.x86_64 (mockbuild@...)`);
- a run of NUL bytes: the file's tail that the filesystem had allocated but never written
  when the node went down, after which the next boot's lines follow. Ticket pastes show the
  run as `^@^@^@...` (less/vim's caret form; after "os reboot", Requiem4Eternity/Appstream#71,
  #79), a live file as the bytes themselves.

Only the lines rsyslog took from the kernel (`<host> kernel: ...`) are read; the daemons'
lines in /var/log/messages are not the kernel's.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser
from rocmdoctor.parsers.kernel_log import parse_kernel_events

_BANNER = re.compile(r" kernel: (?:\[\s*\d+\.\d+\] ?)?Linux version (?P<release>\S+) ")
# NUL bytes, or their caret form in a paste: at least a few, a lone "^@" is text
_NULS = re.compile(r"(?:\x00|\^@){4,}")
_SYSLOG_FORMS = ("journal", "journal-iso")


@parser("syslog_previous_boot")
def parse_syslog_previous_boot(text: str) -> dict[str, Any]:
    """The previous boot's GPU-related kernel events from an rsyslog file (or its tail).

    Returns `{found, events, boundary, boundary_line, release, abrupt_end}`: `found` is
    False when the text holds no boot boundary (the current boot's start was rotated out of
    the file, or is before the tail that was read), and then `events` is None. Otherwise
    `events` are the `kernel_events` records of the lines between the last two boundaries
    (or the start of the text and the last one), `boundary` is "banner" or "nul" (the kind of
    the last boundary), `boundary_line` its text, `release` the kernel release of the
    current boot's banner when it has one, and `abrupt_end` True when the previous boot's
    lines end in NUL bytes: the node went down without writing its log out.
    """
    lines: list[str] = []
    # (kind, index of the boot's first line in `lines`, boundary text, previous boot ended in NULs)
    bounds: list[tuple[str, int, str, bool]] = []
    for raw in text.splitlines():
        nul = _NULS.search(raw)
        if nul:
            before = raw[:nul.start()].replace("\x00", "")
            if before.strip():
                lines.append(before)
            bounds.append(("nul", len(lines), raw[:80].replace("\x00", "^@"), True))
            raw = raw[nul.end():]
        raw = raw.replace("\x00", "")
        if not raw.strip():
            continue
        if _BANNER.search(raw):
            # NULs right before a banner end the boot before it: one boundary, not two
            cut = bool(bounds) and bounds[-1][0] == "nul" and bounds[-1][1] == len(lines)
            if cut:
                bounds.pop()
            bounds.append(("banner", len(lines), raw, cut))
        lines.append(raw)
    if not bounds:
        return {"found": False, "events": None, "boundary": None, "boundary_line": None,
                "release": None, "abrupt_end": False}
    kind, end, line, abrupt = bounds[-1]
    start = bounds[-2][1] if len(bounds) > 1 else 0
    banner = _BANNER.search(line) if kind == "banner" else None
    segment = "\n".join(ln for ln in lines[start:end] if " kernel:" in ln)
    try:
        events = [e for e in parse_kernel_events(segment) if e["format"] in _SYSLOG_FORMS]
    except ParseError:  # kernel lines in no syslog form: nothing of the previous boot can be read
        events = []
    return {"found": True, "events": events, "boundary": kind, "boundary_line": line,
            "release": banner.group("release") if banner else None, "abrupt_end": abrupt}
