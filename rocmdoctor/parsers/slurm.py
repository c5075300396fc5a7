"""`scontrol listpids`: which PIDs on this node belong to which Slurm job step.

Header and row format from SchedMD/slurm src/scontrol/info_job.c
(`%-8s %-8s %-8s %-7s %-8s` / `%-8d %-8d %-8s %-7d %-8d `): `PID JOBID STEPID
LOCALID GLOBALID`, step ids `batch`/`extern`/`interactive`/a number, `-` for
processes that are not a task, PID `-1` for the extern step's placeholder.
Older releases pad STEPID to 6. With no steps slurm prints only the header
(and "No job steps exist on this node." on stderr).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_HEADER = ["PID", "JOBID", "STEPID", "LOCALID", "GLOBALID"]
_INT = re.compile(r"-?\d+")


def _opt_int(value: str) -> int | None:
    return None if value == "-" else int(value)


@parser("scontrol_listpids")
def parse_listpids(text: str) -> list[dict[str, Any]]:
    """Rows of `scontrol listpids`.

    Returns `[{pid: int, jobid: str, stepid: str, localid: int|None,
    globalid: int|None}]` (`jobid` stays a string: array/het jobs print
    `123_4`/`123+1`; `pid` is -1 for the extern placeholder). Raises
    ParseError when the header is missing or a row does not have five columns.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    if lines[0].split() != _HEADER:
        raise ParseError(f"not `scontrol listpids` output: header {lines[0][:60]!r}")
    out = []
    for lineno, line in enumerate(lines[1:], 2):
        if line.strip() == "No job steps exist on this node.":
            continue
        f = line.split()
        if len(f) != 5 or not _INT.fullmatch(f[0]) or not all(x == "-" or _INT.fullmatch(x) for x in f[3:]):
            raise ParseError(f"line {lineno} is not a listpids row: {line[:60]!r}")
        out.append({"pid": int(f[0]), "jobid": f[1], "stepid": f[2],
                    "localid": _opt_int(f[3]), "globalid": _opt_int(f[4])})
    return out
