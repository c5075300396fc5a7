"""What each process using a GPU is given by the host: its GPUs, CPUs, cgroup CPU limit and runtime flags.

One probe command (checks/slow.yaml, `rocmdoctor-gpu-jobs`) walks KFD's process list
(/sys/class/kfd/kfd/proc/<pid>/: `vram_<gpuid>` and `queues/<qid>/gpuid`, kfd_process.c) and
prints, per process, the lines of real files it found, framed by our own markers:

    gpu <gpu_id> <domain> <location_id>      one per KFD topology node with a GPU (before any process)
    == <pid>
    vram <gpu_id> <bytes>                    /sys/class/kfd/kfd/proc/<pid>/vram_<gpu_id>
    queue <gpu_id>                           one per queues/<qid>/gpuid
    Name:/Uid:/Threads:/Cpus_allowed_list:/Mems_allowed_list:   /proc/<pid>/status lines (proc(5))
    lib <path>                               a ROCm library's path in /proc/<pid>/maps (proc(5): the
                                             pathname column), once per path
    wheel <dir>                              the dist-info directory of the PyTorch wheel whose
                                             bundled ROCm the process maps (torch-2.5.1+rocm6.2.dist-info)
    cgroup2 <path> | cgroup1 <path>          the process's CPU cgroup (/proc/<pid>/cgroup)
    --- <file>                               then that cgroup file's lines: cpu.max, cpu.stat (v2),
                                             cpu.cfs_quota_us, cpu.cfs_period_us, cpu.stat (v1)
    --- environ                              then the runtime flags set in /proc/<pid>/environ

Formats: tests/fixtures/outputs/cgroup-cpu/, proc-status/, kfd-proc/ (SOURCES.md in each).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_STATUS = ("Name", "Uid", "Threads", "Cpus_allowed_list", "Mems_allowed_list")


def cpu_list(text: str) -> list[int]:
    """A kernel CPU/node list (`0-23,48-71`, `5`, empty) -> the numbers; ParseError on anything else."""
    out: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part.strip())
        if not m:
            raise ParseError(f"not a CPU list: {text.strip()[:60]!r}")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo or hi - lo > 65536:
            raise ParseError(f"not a CPU range: {part!r}")
        out.extend(range(lo, hi + 1))
    return out


@parser("cpu_list")
def parse_cpu_list(text: str) -> list[int]:
    """A sysfs CPU list such as /sys/devices/system/node/node0/cpulist (`0-23,48-71`)."""
    return cpu_list(text)


def _wheel(dist_info: str) -> dict[str, Any]:
    """`torch-2.5.1+rocm6.2.dist-info` -> {name: torch, version: 2.5.1+rocm6.2, rocm: 6.2} (pip keeps the
    local version label, PyTorch's `+rocmX.Y`, in the directory name); rocm None for another build."""
    stem = dist_info[: -len(".dist-info")]
    name, _, version = stem.partition("-")
    m = re.search(r"\+rocm(\d+\.\d+)", version)
    return {"dir": dist_info, "name": name, "version": version, "rocm": m.group(1) if m else None}


def _library(path: str) -> dict[str, str]:
    """`{path, name, install}`: libamdhip64 from /opt/rocm-6.2.0/lib/libamdhip64.so.6.2.60200 installed in
    /opt/rocm-6.2.0; a wheel's bundled copy (.../site-packages/torch/lib/...) in .../site-packages/torch."""
    parent, _, base = path.rpartition("/")
    top, _, last = parent.rpartition("/")
    return {"path": path, "name": base.split(".so", 1)[0], "install": top if last in ("lib", "lib64") else parent}


def _bdf(domain: int, location: int) -> str:
    return f"{domain:04x}:{location // 256:02x}:{(location // 8) % 32:02x}.{location % 8:x}"


def _cgroup_file(proc: dict[str, Any], name: str, lines: list[str]) -> None:
    if name == "environ":
        proc["env"] = dict(ln.split("=", 1) for ln in lines if "=" in ln)
        return
    if name == "cpu.stat":
        stat = {}
        for ln in lines:
            k, _, v = ln.partition(" ")
            if v.strip().lstrip("-").isdigit():
                stat[k] = int(v)
        proc["cpu_stat"] = stat
        proc["cpu_stat_text"] = " ".join(lines)
        return
    text = " ".join(lines).strip()
    proc["files"][name] = text
    if name == "cpu.max":                       # "max 100000" or "200000 100000" (quota period, µs)
        q, _, p = text.partition(" ")
        proc["quota_us"] = int(q) if q.isdigit() else None
        proc["period_us"] = int(p) if p.strip().isdigit() else None
    elif name == "cpu.cfs_quota_us":            # -1: no limit
        proc["quota_us"] = int(text) if text.isdigit() else None
    elif name == "cpu.cfs_period_us" and text.isdigit():
        proc["period_us"] = int(text)


@parser("gpu_jobs")
def parse_gpu_jobs(text: str) -> dict[str, Any]:
    """`{gpus: {gpu_id: bdf}, processes: [{pid, name, uid, threads, cpus, mems, cpus_text, gpus, queues,
    cgroup, cgroup_version, quota_us, period_us, cpu_stat, env, ...}]}`, each process's GPUs as BDFs."""
    gpus: dict[str, str] = {}
    procs: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    section: str | None = None
    body: list[str] = []

    def flush() -> None:
        if cur is not None and section is not None:
            _cgroup_file(cur, section, body)

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        if line.startswith("gpu ") and cur is None:
            parts = line.split()
            if len(parts) != 4 or not all(p.isdigit() for p in parts[1:]):
                raise ParseError(f"line {lineno}: not `gpu ID DOMAIN LOCATION`: {line[:60]!r}")
            gpus[parts[1]] = _bdf(int(parts[2]), int(parts[3]))
            continue
        if line.startswith("== "):
            flush()
            section, body = None, []
            pid = line[3:].strip()
            if not pid.isdigit():
                raise ParseError(f"line {lineno}: not a process id: {line[:60]!r}")
            cur = {"pid": int(pid), "name": None, "uid": None, "threads": None, "cpus": None, "mems": None,
                   "cpus_text": None, "mems_text": None, "vram": {}, "queues": {}, "cgroup": None,
                   "cgroup_version": None, "quota_us": None, "period_us": None, "cpu_stat": None,
                   "cpu_stat_text": None, "files": {}, "env": {}, "libs": [], "wheels": []}
            procs.append(cur)
            continue
        if cur is None:
            raise ParseError(f"line {lineno}: expected `gpu ...` or `== PID`, got {line[:60]!r}")
        if line.startswith("--- "):
            flush()
            section, body = line[4:].strip(), []
            continue
        if section is not None:
            body.append(line.strip())
            continue
        key, _, value = line.partition(" ")
        if key == "vram" and len(value.split()) == 2 and value.split()[1].isdigit():
            cur["vram"][value.split()[0]] = int(value.split()[1])
        elif key == "lib" and value.startswith("/"):
            cur["libs"].append(_library(value.strip()))
        elif key == "wheel" and value.strip().endswith(".dist-info"):
            cur["wheels"].append(_wheel(value.strip()))
        elif key == "queue" and value.strip().isdigit():
            cur["queues"][value.strip()] = cur["queues"].get(value.strip(), 0) + 1
        elif key in ("cgroup1", "cgroup2"):
            cur["cgroup"], cur["cgroup_version"] = value.strip(), int(key[-1])
        elif line.split(":", 1)[0] in _STATUS:
            k, _, v = line.partition(":")
            v = v.strip()
            if k == "Name":
                cur["name"] = v
            elif k == "Uid":
                cur["uid"] = int(v.split()[0]) if v.split() and v.split()[0].isdigit() else None
            elif k == "Threads":
                cur["threads"] = int(v) if v.isdigit() else None
            elif k == "Cpus_allowed_list":
                cur["cpus"], cur["cpus_text"] = cpu_list(v), v
            else:
                cur["mems"], cur["mems_text"] = cpu_list(v), v
        else:
            raise ParseError(f"line {lineno}: unexpected {line[:60]!r}")
    flush()
    for p in procs:
        used = set(p["vram"]) | set(p["queues"])
        p["gpus"] = sorted(gpus.get(g, f"gpu_id {g}") for g in used if g in p["queues"] or p["vram"].get(g))
    return {"gpus": gpus, "processes": procs}
