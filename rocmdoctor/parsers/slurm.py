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


@parser("gres_conf")
def parse_gres_conf(text: str) -> dict[str, Any]:
    """Slurm's gres.conf (gres.conf(5)): `Key=Value` pairs per line, `#` comments.

    Returns `{autodetect: str|None, autodetect_line: int|None, records: [{line: int,
    fields: {key: value}}]}`: `AutoDetect` given on a line of its own (or the first one
    given) is the node-wide mode (`nvml`, `rsmi`, `nrt`, `oneapi`, `off`), keys keep
    the file's spelling, values their text. Lines like `AutoDetect=nvml` / `Name=gpu`
    (ComputeCanada/puppet-magic_castle#27) and `Name=gpu Type=h100 File=/dev/nvidia0`
    (SlinkyProject/slurm-operator#101) are what it reads. A line of anything but pairs
    raises ParseError naming it.
    """
    records: list[dict[str, Any]] = []
    autodetect: str | None = None
    auto_line: int | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields: dict[str, str] = {}
        for token in line.split():
            key, sep, value = token.partition("=")
            if not sep or not key:
                raise ParseError(f"gres.conf line {lineno} is not Key=Value pairs: {raw.strip()[:60]!r}")
            fields[key] = value
        auto = next((v for k, v in fields.items() if k.lower() == "autodetect"), None)
        if auto is not None and autodetect is None:
            autodetect, auto_line = auto.lower(), lineno
        records.append({"line": lineno, "fields": fields})
    return {"autodetect": autodetect, "autodetect_line": auto_line, "records": records}


_SLURMD_START = re.compile(r"\bslurmd version \S+ started\s*$")
_DETECTED = re.compile(r"\b(\d+) GPU system device\(s\) detected")
_GRES_LINE = re.compile(r"^(?:\[[^\]]*\] )?(?:\w+: )?\s+(GRES\[.*)$")
_DISCARDED = "Discarding the following config-only GPU due to lack of File specification:"
_IGNORED = "The following autodetected GPUs are being ignored:"


def _block(lines: list[str], header: str) -> tuple[str | None, list[str]]:
    """The last `header` line and the `GRES[...]` lines printed right after it."""
    at = max((i for i, line in enumerate(lines) if header in line), default=None)
    if at is None:
        return None, []
    gres = []
    for line in lines[at + 1:]:
        m = _GRES_LINE.match(line)
        if not m:
            break
        gres.append(m.group(1).strip())
    return lines[at], gres


@parser("slurmd_log")
def parse_slurmd_log(text: str) -> dict[str, Any]:
    """The tail of slurmd's log, split at slurmd's last start, with what the GPU merge said.

    slurmd logs `[<time>] slurmd version 25.05.3 started` at every start
    (tests/fixtures/outputs/slurm/slurmd.log-start); a complaint before the last start
    belongs to a slurmd that is no longer running. When slurmd merges gres.conf with the GPUs
    it detected (gres_gpu.c `_merge_system_gres_conf`) it prints one `GRES[gpu] ...` line per
    record under "Discarding the following config-only GPU ..." and "The following autodetected
    GPUs are being ignored:" (slurmd.log-gpus-ignored-*): a node whose GPUs all work but that
    registers none of them. Returns `{started: str|None, since_start: [str], detected: int|None,
    discarded_header: str|None, discarded: [str], ignored_header: str|None, ignored: [str]}`,
    the merge read from the lines since the last start only (every line when the tail holds no
    start).
    """
    lines = text.splitlines()
    start = max((i for i, line in enumerate(lines) if _SLURMD_START.search(line)), default=None)
    since = lines[start + 1:] if start is not None else lines
    counts = [int(m.group(1)) for line in since if (m := _DETECTED.search(line))]
    discarded_header, discarded = _block(since, _DISCARDED)
    ignored_header, ignored = _block(since, _IGNORED)
    return {"started": lines[start] if start is not None else None, "since_start": since,
            "detected": counts[-1] if counts else None,
            "discarded_header": discarded_header, "discarded": discarded,
            "ignored_header": ignored_header, "ignored": ignored}
