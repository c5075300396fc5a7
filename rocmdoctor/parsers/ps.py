"""`ps -e -o pid=,stat=,user=,comm=`: which processes exist and in what state.

Columns are right/left padded, no header (the `=` suffix drops it). `comm` is
last because it may contain spaces (a thread name like `Web Content`, or
`kworker/0:1H-kblockd`), so everything after the third column is the command.
procps prints a user name longer than the column (8 chars for `user=`) as
the numeric uid, so `user` may be a number; `comm` is at most 15 characters
(the kernel's TASK_COMM_LEN).
"""

from __future__ import annotations

from typing import Any

from rocmdoctor.parsers import ParseError, parser


@parser("ps")
def parse_ps(text: str) -> list[dict[str, Any]]:
    """Processes from `ps -e -o pid=,stat=,user=,comm=`.

    Returns `[{pid: int, stat: str, state: str, user: str, comm: str}]`;
    `state` is the first STAT letter (R, S, D, Z, T, I, ...), `comm` may
    contain spaces. A header line (`PID STAT USER COMMAND`) is skipped.
    Raises ParseError on a line whose first column is not a PID.
    """
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split(None, 3)
        if lineno == 1 and parts[0] == "PID":
            continue
        if len(parts) < 4 or not parts[0].isdigit():
            raise ParseError(f"line {lineno} is not `ps -o pid=,stat=,user=,comm=` output: {line[:60]!r}")
        out.append({"pid": int(parts[0]), "stat": parts[1], "state": parts[1][0],
                    "user": parts[2], "comm": parts[3].rstrip()})
    return out
