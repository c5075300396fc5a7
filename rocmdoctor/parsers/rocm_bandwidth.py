"""`rocm_bandwidth_test -v` (validation mode): which copy paths returned the data they were given.

The test copies a buffer along every path between the ROCm agents (host to GPU, GPU to host,
GPU to GPU, inside one GPU) and compares it with what was sent. Its report (ROCm/
rocm_bandwidth_test rocm_bandwidth_test_report.cpp DisplayDevInfo / PrintPerfMatrix):

    Device: 0,  Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz
    Device: 1,  Vega 10 XTX [Radeon Vega Frontier Edition]
    ...
    Data Path Validation

    D/D       0           1

    0         N/A         FAIL

    1         FAIL        PASS

(version 1.0.0, ROCm/legacy-rocm-build#559). Version 2.0.1 adds the GPU's bus address to its device line
(`Device: 1,  Vega 10 [Radeon PRO WX 8100],  0d:0.0`) and calls its access matrix "Device Access"
(ROCm/legacy-rocm-build#787); current versions add the UUID too (`Device: 1,  <name>,  <uuid>,  0c:0.0`)
and call it "Inter-Device Access". `N/A` is a path the test did not run, `FAIL` a copy whose data came back
different.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_DEVICE = re.compile(r"^\s*Device: (\d+),\s+(.+?)\s*$")
_HEADER = re.compile(r"^\s*D/D((?:\s+\d+)+)\s*$")
_ROW = re.compile(r"^\s*(\d+)((?:\s+(?:PASS|FAIL|N/A))+)\s*$")
_CPU_NAME = re.compile(r"\bCPU\b|Processor|EPYC|Xeon")
_BUS = re.compile(r"^[0-9a-f]{2}:[0-9a-f]{1,2}\.[0-7]$")
_ACCESS_HEADINGS = ("Inter-Device Access", "Device Access")


@parser("rocm_bandwidth_validation")
def parse_rocm_bandwidth_validation(text: str) -> dict[str, Any]:
    """The devices and the Data Path Validation matrix of `rocm_bandwidth_test -v`.

    Returns `{found, devices: {index: {index, name, uuid, bdf, kind, label}}, paths: [{src, dst, result}],
    failed: [{src, dst, src_name, dst_name, kind, gpu}], passed: int, lines: [matrix lines]}`; a
    device's `label` (and a failed path's src/dst_name) is `device N (name[, bus address])`;
    `gpu` is the label of a host-GPU path's GPU end (None for other paths).
    `kind` of a device is "gpu" when its line carries a UUID and bus address, "cpu" when its
    name reads like a processor, else "device"; a failed path's kind is "host-gpu", "gpu-gpu"
    or "within-device" (the agents besides the host are GPUs). Text without a "Data Path
    Validation" section (a job log, a run without -v) gives `found: False` and no paths; a
    section whose matrix cannot be read raises ParseError. `no_peer` lists the GPU pairs
    (`{src, dst, src_name, dst_name}`) the "Inter-Device Access" matrix marks 0, with or without
    -v; `access_lines` that matrix's lines.
    """
    lines = text.splitlines()
    devices: dict[int, dict[str, Any]] = {}
    for line in lines:
        m = _DEVICE.match(line)
        if m:
            parts = re.split(r",\s{2,}", m.group(2))
            # a GPU's line ends in its bus address (2.0.1: name, bus; current: name, UUID, bus)
            gpu = len(parts) >= 2 and bool(_BUS.match(parts[-1]))
            uuid = parts[-2] if gpu and len(parts) >= 3 else None
            name = ",  ".join(parts[:-2] if uuid else parts[:-1]) if gpu else parts[0]
            devices[int(m.group(1))] = {
                "index": int(m.group(1)), "name": name,
                "uuid": uuid, "bdf": parts[-1] if gpu else None,
                "kind": "gpu" if gpu else ("cpu" if _CPU_NAME.search(name) else "device"),
                "label": f"device {m.group(1)} ({name}" + (f", {parts[-1]})" if gpu else ")")}
    no_peer, access_lines = _no_peer_access(lines, devices)
    start = next((i for i, line in enumerate(lines) if line.strip() == "Data Path Validation"), None)
    if start is None:
        # a job log, or rocm_bandwidth_test run without -v: nothing validated, not a malformed report
        return {"found": False, "devices": devices, "paths": [], "failed": [], "passed": 0, "lines": [],
                "no_peer": no_peer, "access_lines": access_lines}
    columns, rows, matrix_lines = _matrix(lines, start, _ROW, strict="validation")
    paths = [{"src": src, "dst": dst, "result": r} for src, results in rows for dst, r in zip(columns, results)]
    if not paths:
        raise ParseError("'Data Path Validation' without its matrix")

    def kind(p: dict[str, Any]) -> str:
        if p["src"] == p["dst"]:
            return "within-device"
        kinds = {devices.get(p["src"], {}).get("kind"), devices.get(p["dst"], {}).get("kind")}
        return "host-gpu" if "cpu" in kinds else "gpu-gpu"

    def label(i: int) -> str:
        return devices.get(i, {}).get("label", f"device {i}")

    def gpu_end(p: dict[str, Any]) -> str | None:
        if kind(p) != "host-gpu":
            return None
        return label(p["dst"] if devices.get(p["src"], {}).get("kind") == "cpu" else p["src"])

    failed = [{**p, "src_name": label(p["src"]), "dst_name": label(p["dst"]), "kind": kind(p), "gpu": gpu_end(p)}
              for p in paths if p["result"] == "FAIL"]
    return {"found": True, "devices": devices, "paths": paths, "failed": failed,
            "passed": sum(1 for p in paths if p["result"] == "PASS"), "lines": matrix_lines,
            "no_peer": no_peer, "access_lines": access_lines}


_ACCESS_ROW = re.compile(r"^\s*(\d+)((?:\s+[01])+)\s*$")


def _matrix(lines: list[str], start: int, row_re: re.Pattern[str], strict: str | None = None
            ) -> tuple[list[int], list[tuple[int, list[str]]], list[str]]:
    """The `D/D` matrix after line `start`: its columns, its rows `(src, cells)` and its lines. A row with
    the wrong number of cells ends it, or with `strict` (the matrix's name) raises ParseError."""
    columns: list[int] = []
    rows: list[tuple[int, list[str]]] = []
    matrix: list[str] = []
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        header = _HEADER.match(line)
        if header and not columns:
            columns = [int(c) for c in header.group(1).split()]
            matrix.append(line.rstrip())
            continue
        row = row_re.match(line)
        if not columns or not row:
            break
        cells = row.group(2).split()
        if len(cells) != len(columns):
            if strict:
                raise ParseError(f"{strict} row {row.group(1)} has {len(cells)} results for {len(columns)} devices")
            break
        matrix.append(line.rstrip())
        rows.append((int(row.group(1)), cells))
    return columns, rows, matrix


def _no_peer_access(lines: list[str], devices: dict[int, dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """GPU pairs the "Inter-Device Access" matrix marks 0: the runtime gives them no peer access
    (rocm_bandwidth_test then skips their copies, N/A in every bandwidth matrix)."""
    start = next((i for i, line in enumerate(lines) if line.strip() in _ACCESS_HEADINGS), None)
    if start is None:
        return [], []
    columns, rows, matrix = _matrix(lines, start, _ACCESS_ROW)
    pairs = [{"src": src, "dst": dst, "src_name": devices[src]["label"], "dst_name": devices[dst]["label"]}
             for src, cells in rows for dst, cell in zip(columns, cells)
             if cell == "0" and src < dst and all(devices.get(i, {}).get("kind") == "gpu" for i in (src, dst))]
    return pairs, matrix
