"""Application logs (`--log FILE`): GPU out-of-memory signatures of ROCm workloads.

A job log says "out of memory" in many ways, and many lines that contain the
words are not a GPU OOM at all. Only lines in a known real format count:

- PyTorch on ROCm: `torch.OutOfMemoryError: HIP out of memory. Tried to allocate
  2.00 MiB. GPU 7 has a total capacity of 287.98 GiB of which 203.49 GiB is free.
  Of the allocated memory 68.63 GiB is allocated by PyTorch, and 14.93 GiB is
  reserved by PyTorch but unallocated. ...` (pytorch/pytorch#175431; the
  `N allowed;` and `with X allocated in private pools` parts as in ROCm/TheRock#2118)
  and the pre-2.1 form `(GPU 0; T total capacity; A already allocated; F free;
  R reserved in total by PyTorch)`;
- HIP runtime errors naming `hipErrorOutOfMemory` (BLAST-WarpX/warpx#3398,
  ROCm/rocprofiler-systems#104) or `HIP error: out of memory`, and CLR's own log line with the
  figures (AMD_LOG_LEVEL >= 1; hipamd/src/hip_memory.cpp ihipMalloc): `Allocation failed : Device
  memory : required :4 | free :2314338304 | total :17163091968` (ROCm/ROCm#2480);
- llama.cpp / ollama (ggml HIP build, which keeps the CUDA names):
  `ggml_backend_cuda_buffer_type_alloc_buffer: allocating 14136.04 MiB on device 0:
  cudaMalloc failed: out of memory` (ggml-org/llama.cpp#16725), `failed to allocate
  ROCm0 buffer of size N`, `unable to allocate ROCm0 buffer` (ollama/ollama#11265),
  `ROCm error: out of memory` (ollama/ollama#11713).

Host-memory lines are told apart (`kind: host`): ollama's `model requires more
system memory (164.8 GiB) than is available (13.4 GiB)` (ollama/ollama#10920),
ggml's `failed to allocate ... of pinned memory` (ggml-org/llama.cpp#9629),
PyTorch's `DefaultCPUAllocator: not enough memory`, Python `MemoryError`, and the
kernel OOM killer. Any other line mentioning OOM (allocator advice such as
`PYTORCH_HIP_ALLOC_CONF=expandable_segments:True` on its own, a test called
`test_out_of_memory`, a `--max-memory` flag) is only counted as a mention.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_SIZE = r"(\d+(?:\.\d+)?) ?(bytes|B|KiB|MiB|GiB|TiB)"
_UNITS = {"bytes": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}

_TORCH_NEW = re.compile(
    r"(?:torch\.(?:cuda\.)?OutOfMemoryError: )?(?P<api>HIP|CUDA) out of memory\. Tried to allocate " + _SIZE
    # "capacty": PyTorch 2.1's spelling in c10/cuda/CUDACachingAllocator.cpp, corrected later
    # (InvokeAI on an RX 7800 XT prints it: invoke-ai/InvokeAI, in the corpus)
    + r"\. GPU (?P<gpu>\d+) has a total capac(?:i)?ty of " + _SIZE + r" of which " + _SIZE + r" is free\."
    r"(?P<mid>.*?)Of the allocated memory " + _SIZE + r" is allocated by PyTorch, (?:with .*? private pools "
    r"\(e\.g\., \w+ Graphs\), )?and " + _SIZE + r" is reserved by PyTorch but unallocated")
_TORCH_OLD = re.compile(
    r"(?P<api>HIP|CUDA) out of memory\. Tried to allocate " + _SIZE + r" \(GPU (?P<gpu>\d+); " + _SIZE
    + r" total capacity; " + _SIZE + r" already allocated; " + _SIZE + r" free; " + _SIZE
    + r" reserved in total by PyTorch\)")
_ALLOWED = re.compile(_SIZE + r" allowed;")
_WRAPPED_TORCH = re.compile(r"(?:HIP|CUDA) out of memory\.$")

# (kind, framework, pattern); first match wins, GPU forms before host forms.
_LINES: list[tuple[str, str, re.Pattern[str]]] = [
    ("gpu", "ggml", re.compile(r"ggml_backend_cuda_buffer_type_alloc_buffer: allocating (?P<mib>[\d.]+) MiB "
                               r"on device (?P<gpu>\d+): cudaMalloc failed: out of memory")),
    ("gpu", "ggml", re.compile(r"failed to allocate (?P<dev>ROCm|CUDA)(?P<gpu>\d+) buffer(?: of size (?P<size>\d+))?")),
    ("gpu", "ggml", re.compile(r"unable to allocate (?P<dev>ROCm|CUDA)(?P<gpu>\d+) buffer")),
    # ggml's HIP build reports through the CUDA code path: older releases (ollama 0.1.x's bundled llama.cpp)
    # print "CUDA error: out of memory" above a `hipMalloc(...)` line, newer ones "ROCm error"
    ("gpu", "ggml", re.compile(r"(?:ROCm|CUDA) error: out of memory")),
    ("gpu", "hip", re.compile(r"hipErrorOutOfMemory|HIP error: out of memory")),
    ("host", "ollama", re.compile(r"model requires more system memory \((?P<need>[^)]+)\) than is available "
                                  r"\((?P<have>[^)]+)\)")),
    ("host", "ggml", re.compile(r"failed to allocate [\d.,]+ MiB of pinned memory")),
    ("host", "pytorch", re.compile(r"DefaultCPUAllocator: not enough memory")),
    ("host", "kernel", re.compile(r"Out of memory: Killed process (?P<pid>\d+) \((?P<comm>[^)]*)\)")),
    ("host", "python", re.compile(r"^(?:\S+ )?MemoryError\b|std::bad_alloc")),
]
_MENTION = re.compile(r"out[ _]of[ _]memory|(?<![a-z])oom(?![a-z])|OutOfMemory", re.IGNORECASE)


def _bytes(num: str, unit: str) -> int:
    return int(float(num) * _UNITS[unit])


def _torch(line: str) -> dict[str, Any] | None:
    m = _TORCH_NEW.search(line)
    if m:
        g = m.groups()
        # groups: api, tried(2), gpu, total(2), free(2), mid, allocated(2), reserved-unallocated(2)
        tried, total, free = _bytes(g[1], g[2]), _bytes(g[4], g[5]), _bytes(g[6], g[7])
        allowed = _ALLOWED.search(m.group("mid"))
        return {"tried_bytes": tried, "gpu": int(m.group("gpu")), "total_bytes": total, "free_bytes": free,
                "allocated_bytes": _bytes(g[9], g[10]), "reserved_unallocated_bytes": _bytes(g[11], g[12]),
                "allowed_bytes": _bytes(allowed.group(1), allowed.group(2)) if allowed else None,
                "api": m.group("api")}
    m = _TORCH_OLD.search(line)
    if m:
        g = m.groups()
        # api, tried(2), gpu, total(2), allocated(2), free(2), reserved(2)
        allocated, reserved = _bytes(g[6], g[7]), _bytes(g[10], g[11])
        return {"tried_bytes": _bytes(g[1], g[2]), "gpu": int(m.group("gpu")), "total_bytes": _bytes(g[4], g[5]),
                "free_bytes": _bytes(g[8], g[9]), "allocated_bytes": allocated,
                "reserved_unallocated_bytes": max(reserved - allocated, 0), "allowed_bytes": None,
                "api": m.group("api")}
    return None


_CLR_ALLOC = re.compile(r"Allocation failed : Device memory : required :(\d{1,16}) ?\| ?free :(\d{1,16}) ?\| ?total :(\d{1,16})")


def _device_refused(t: dict[str, Any]) -> bool:
    """The request was small against what the device reported free, so the device allocation itself
    was refused, not the memory used up (see classify_app_line)."""
    return bool(t["allowed_bytes"] is None and t["total_bytes"] and t["free_bytes"] is not None
                and t["free_bytes"] <= t["total_bytes"] and t["tried_bytes"] <= t["free_bytes"]
                and (0.5 * t["total_bytes"] <= t["free_bytes"] or 4 * t["tried_bytes"] <= t["free_bytes"]))


def classify_app_line(line: str) -> dict[str, Any] | None:
    """What one log line says about memory: `{kind: gpu|host|mention, framework, ...}` or None."""
    c = _CLR_ALLOC.search(line)
    if c:
        t = {"tried_bytes": int(c.group(1)), "free_bytes": int(c.group(2)), "total_bytes": int(c.group(3)),
             "allowed_bytes": None, "allocated_bytes": None, "reserved_unallocated_bytes": 0, "api": "hipMalloc"}
        return {"kind": "gpu", "framework": "hip", "fragmentation": False, "device_refused": _device_refused(t), **t}
    t = _torch(line)
    if t:
        # with a per-process cap (`N allowed;`) the cap, not fragmentation, refused the request;
        # a job whose own tensors fill the GPU (>= 90% of its capacity) does not fit, whatever
        # crumbs its cache holds (nlzy/vllm-gfx906#14: 15.69 of 15.98 GiB allocated, 92 MiB cached)
        # "free" above the request without a large cache is not PyTorch fragmentation
        # (expandable_segments cannot help): on APUs the device's free figure counts memory
        # the allocation cannot get (lemonade-sdk/vllm-rocm#5: 18.55 GiB free, 12.95 refused).
        # With half the device or more free and the request under it, the caching allocator would
        # have taken a fresh segment: the device allocation itself failed (pytorch/pytorch#175431:
        # 2 MiB refused with 203 of 288 GiB free), which neither fragmentation nor capacity explains.
        full = t["total_bytes"] and t["allocated_bytes"] >= 0.9 * t["total_bytes"]
        # (free above total is an APU counting its GTT pool: ROCm/TheRock#4598; not this case)
        # A request of a quarter of the free memory or less is refused the same way (Comfy-Org/ComfyUI: 432 MiB
        # refused with 7.12 GiB free); an APU's refusal of most of its "free" is not (12.95 of 18.55 GiB).
        device_refused = _device_refused(t)
        frag = (t["allowed_bytes"] is None and not full and not device_refused
                and t["reserved_unallocated_bytes"] >= t["tried_bytes"])
        return {"kind": "gpu", "framework": "pytorch", "fragmentation": frag, "device_refused": device_refused, **t}
    for kind, framework, pattern in _LINES:
        m = pattern.search(line)
        if m:
            fields = {k: v for k, v in m.groupdict().items() if v is not None}
            out: dict[str, Any] = {"kind": kind, "framework": framework, "fragmentation": False,
                                   "device_refused": False}
            if "gpu" in fields:
                out["gpu"] = int(fields["gpu"])
            if "mib" in fields:
                out["tried_bytes"] = int(float(fields["mib"]) * (1 << 20))
            elif "size" in fields:
                out["tried_bytes"] = int(fields["size"])
            out.update({k: v for k, v in fields.items() if k in ("need", "have", "pid", "comm")})
            return out
    if _MENTION.search(line):
        return {"kind": "mention", "framework": None, "fragmentation": False, "device_refused": False}
    return None


@parser("app_log")
def parse_app_log(text: str) -> dict[str, Any]:
    """GPU/host out-of-memory lines of an application log (PyTorch, HIP, llama.cpp, ollama).

    Returns `{gpu_oom: [event], host_oom: [event], mentions: int, lines: int,
    fragmentation: bool, last: event|None}`; an event is `{lineno, line, kind,
    framework, gpu, tried_bytes, total_bytes, free_bytes, allocated_bytes,
    reserved_unallocated_bytes, allowed_bytes, fragmentation}` (absent numbers
    are None). `fragmentation` is True when PyTorch says the request would have
    fit in its reserved-but-unallocated cache.
    `mentions` counts lines that only look like OOM. Never fails: any text is a log.
    """
    gpu: list[dict[str, Any]] = []
    host: list[dict[str, Any]] = []
    mentions = 0
    keys = ("gpu", "tried_bytes", "total_bytes", "free_bytes", "allocated_bytes",
            "reserved_unallocated_bytes", "allowed_bytes", "api", "need", "have", "pid", "comm")
    lines = text.splitlines()
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if _WRAPPED_TORCH.search(line):
            # the message wrapped after its first sentence (ComfyUI's console; Comfy-Org/ComfyUI#13112):
            # read it with the lines that carry its figures
            line = " ".join([line.strip()] + [n.strip() for n in lines[lineno:lineno + 3]])
        hit = classify_app_line(line)
        if hit is None:
            continue
        if hit["kind"] == "mention":
            mentions += 1
            continue
        event = {"lineno": lineno, "line": line.strip()[:400], **{k: hit.get(k) for k in keys},
                 "kind": hit["kind"], "framework": hit["framework"], "fragmentation": hit["fragmentation"],
                 "device_refused": hit["device_refused"]}
        (gpu if hit["kind"] == "gpu" else host).append(event)
    return {"gpu_oom": gpu, "host_oom": host, "mentions": mentions, "lines": len(lines),
            "fragmentation": any(e["fragmentation"] for e in gpu), "last": gpu[-1] if gpu else None}
