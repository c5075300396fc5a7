"""`lsmod`: the loaded modules as tickets paste them (`lsmod | grep amd` is in most driver tickets).

A live probe reads /proc/modules (`proc_modules`); a ticket brings lsmod's table instead, and
its `Used by` column is what tells which amdgpu is loaded: the kernel's own uses `ttm` and
`gpu_sched`, ROCm's DKMS build brings its own copies (`amdttm`, `amd_sched`, `amdkcl`).

Format: kmod tools/lsmod.c prints the header `Module                  Size  Used by`, then
`printf("%-19s %8ld  %d", name, size, use_count)` and the holders joined by `,` after one blank.
busybox lsmod prints the same header over /proc/modules' own lines, so those are read too.
Pastes collapse the padding and keep only the lines a `grep` let through; both are fine.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser
from rocmdoctor.parsers.proc_modules import module_record

_HEADER = re.compile(r"^Module\s+Size\s+Used by\s*$")
# name size use_count [holders] [rest of a /proc/modules line: state, address, taint]
_LINE = re.compile(
    r"^(?P<name>[\w-]+)\s+(?P<size>\d+)\s+(?P<refcount>-?\d+|-)"
    r"(?:\s+(?P<deps>[\w,-]+|\[permanent\]))?"
    r"(?:\s+(?P<state>Live|Loading|Unloading)(?:\s+0x[0-9a-f]+)?(?:\s+\((?P<taint>[A-Z+-]+)\))?)?\s*$"
)


@parser("lsmod")
def parse_lsmod(text: str) -> dict[str, dict[str, Any]]:
    """Loaded kernel modules from lsmod's table (kmod or busybox), by name.

    Returns the shape `proc_modules` returns, `{name: {size, refcount, deps, state, taint}}`,
    `deps` being the `Used by` holders; `state` is None and `taint` "" where lsmod does not
    show them. The header is optional (a grep drops it). Raises ParseError on a line that is
    not a module line.
    """
    out: dict[str, dict[str, Any]] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or _HEADER.match(line):
            continue
        m = _LINE.match(line)
        if not m:
            raise ParseError(f"line {lineno} is not an lsmod line: {line[:60]!r}")
        out[m.group("name")] = module_record(m)
    return out
