"""Simulated gpu-oom incidents: VRAM held by stale processes, app-log OOMs, host OOM kills.

Every log line below is verbatim from the public report named beside it.
"""

from __future__ import annotations

# --- real application-log lines (kind, text, source) --------------------------------------
#: PyTorch on ROCm (ComfyUI, 20 GB GPU): 6.64 GiB asked with 7.10 GiB reserved-but-unallocated and
#: the GPU not mostly free, i.e. fragmentation (pytorch/pytorch#138002, label module: rocm)
TORCH_FRAGMENTED = (
    "!!! Exception during processing !!! HIP out of memory. Tried to allocate 6.64 GiB. GPU 0 has a total capacity "
    "of 19.92 GiB of which 6.22 GiB is free. Of the allocated memory 5.34 GiB is allocated by PyTorch, and 7.10 GiB "
    "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
TORCH_FRAGMENTED_SRC = "https://github.com/pytorch/pytorch/issues/138002"
# 2 MiB refused with 203 of 288 GiB free: the device allocation failed, not PyTorch's cache
TORCH_DEVICE_REFUSED = (
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB. GPU 7 has a total capacity of "
    "287.98 GiB of which 203.49 GiB is free. Of the allocated memory 68.63 GiB is allocated by PyTorch, and "
    "14.93 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
TORCH_DEVICE_REFUSED_SRC = "https://github.com/pytorch/pytorch/issues/175431"

#: PyTorch on ROCm, a genuinely full GPU (780 MiB free, 75 MiB cached) (kyuz0/amd-strix-halo-image-video-toolboxes#3)
TORCH_FULL = (
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 3.31 GiB. GPU 0 has a total capacity of "
    "128.00 GiB of which 780.24 MiB is free. Of the allocated memory 57.70 GiB is allocated by PyTorch, and "
    "75.82 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
TORCH_FULL_SRC = "https://github.com/kyuz0/amd-strix-halo-image-video-toolboxes/issues/3"

#: PyTorch test run under a per-process cap (`1.05 GiB allowed;`, private pools) (ROCm/TheRock#2118)
TORCH_CAPPED = (
    "2025-11-14T08:52:38.3746210Z FAILED [0.0004s] external-builds/pytorch/pytorch/test/test_autograd.py::"
    "TestAutogradDeviceTypeCUDA::test_set_requires_grad_only_for_floats_cuda_int32 - torch.OutOfMemoryError: "
    "HIP out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 287.98 GiB of which 275.86 GiB "
    "is free. 1.05 GiB allowed; Of the allocated memory 1017.01 MiB is allocated by PyTorch, with 17.00 MiB "
    "allocated in private pools (e.g., HIP Graphs), and 54.99 MiB is reserved by PyTorch but unallocated. If "
    "reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
    "avoid fragmentation.  See documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
TORCH_CAPPED_SRC = "https://github.com/ROCm/TheRock/issues/2118"

#: the pre-2.1 PyTorch wording (same allocator message, CUDA build) (pytorch/pytorch#59778)
TORCH_OLD = ("CUDA out of memory. Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; 781.59 MiB "
             "already allocated; 3.03 GiB free; 1.24 GiB reserved in total by PyTorch)")
TORCH_OLD_SRC = "https://github.com/pytorch/pytorch/issues/59778"

#: llama.cpp HIP build: the allocator keeps its CUDA names (ggml-org/llama.cpp#16725, ROCm0 buffer)
GGML_LINES = [
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 14136.04 MiB on device 0: cudaMalloc failed: out of memory",
    "ggml_gallocr_reserve_n: failed to allocate ROCm0 buffer of size 14822711296",
    "graph_reserve: failed to allocate compute buffers",
]
GGML_SRC = "https://github.com/ggml-org/llama.cpp/issues/16725"

#: ollama (ROCm): model load (ollama/ollama#11265) and runtime (ollama/ollama#11713, journal form)
OLLAMA_LOAD = "llama_model_load: error loading model: unable to allocate ROCm0 buffer"
OLLAMA_LOAD_SRC = "https://github.com/ollama/ollama/issues/11265"
OLLAMA_RUNTIME = "Aug 13 16:58:56 monster ollama[3010374]: ROCm error: out of memory"
OLLAMA_RUNTIME_SRC = "https://github.com/ollama/ollama/issues/11713"

#: HIP runtime error code in an HPC code on MI250X (BLAST-WarpX/warpx#3398, OLCF Crusher)
HIP_ERROR = ("amrex::Abort::1::HIP error in file WarpX/build/_deps/fetchedamrex-src/Src/Base/AMReX_GpuDevice.cpp "
             "line 402 hipErrorOutOfMemory !!!")
HIP_ERROR_SRC = "https://github.com/BLAST-WarpX/warpx/issues/3398"

#: host memory, not VRAM: ollama's system-memory check (ollama/ollama#10920) and ggml pinned host
#: memory (ggml-org/llama.cpp#9629, issue title)
OLLAMA_HOST_RAM = "Error: model requires more system memory (164.8 GiB) than is available (13.4 GiB)"
OLLAMA_HOST_RAM_SRC = "https://github.com/ollama/ollama/issues/10920"
GGML_PINNED = "ggml_cuda_host_malloc: failed to allocate 1900,00 MiB of pinned memory: invalid argument"
GGML_PINNED_SRC = "https://github.com/ggml-org/llama.cpp/issues/9629"

#: lines that only LOOK like an OOM (constructed look-alikes: advice text, a test name, a flag, an env dump)
LOOKALIKES = [
    "If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True "
    "to avoid fragmentation.",
    "test/test_cuda.py::TestCuda::test_out_of_memory PASSED",
    "test_oom_recovery.py::test_oom_handler_restarts_worker PASSED",
    "+ python serve.py --max-memory 0:180GiB --oom-score-adj 500",
    "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True",
]


# --- nodes ------------------------------------------------------------------------------
import atexit
import os
import subprocess
from pathlib import Path
from typing import Callable

from rocmdoctor.simnode.formats import amd_smi, system
from rocmdoctor.simnode.formats.kernel_lines import messages
from rocmdoctor.simnode.gpu import GIB, SimProcess, strix_halo_gpu
from rocmdoctor.simnode.scenarios import from_cases
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.sysfs import gpu_id

RUNBOOK = "gpu-oom"
JOB_LOG = "/home/alice/jobs/train-4243.out"

#: real processes started by live scenarios (sleep 300 stand-ins for a leftover job); tests end them,
#: and so does interpreter exit (a demo node lives for one rocmdoctor run; sweeps build many nodes)
LIVE: list[subprocess.Popen] = []


def healthy() -> SimNode:
    """The healthy MI300X node (testing.nodes.healthy_mi300x when present)."""
    try:
        from rocmdoctor.simnode.nodes import healthy_mi300x  # type: ignore[import-not-found]
    except ImportError:
        from rocmdoctor.simnode.gpu import mi300x_gpus

        return SimNode("mi300x-01", gpus=mi300x_gpus(8), description="healthy 8x MI300X, ROCm 6.2")
    return healthy_mi300x()


def torch_oom_line(gpu: int, tried_gib: float, total_gib: float, free_gib: float, alloc_gib: float,
                   reserved_mib: float) -> str:
    """PyTorch's ROCm OOM message in the exact wording of TORCH_FULL (kyuz0/...#3), with this node's numbers."""
    return (f"torch.OutOfMemoryError: HIP out of memory. Tried to allocate {tried_gib:.2f} GiB. GPU {gpu} has a "
            f"total capacity of {total_gib:.2f} GiB of which {free_gib:.2f} GiB is free. Of the allocated memory "
            f"{alloc_gib:.2f} GiB is allocated by PyTorch, and {reserved_mib:.2f} MiB is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
            "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def _job_log(node: SimNode, lines: list[str]) -> None:
    head = ["[rank0]: Traceback (most recent call last):",
            '[rank0]:   File "/home/alice/train.py", line 212, in <module>']
    node.file(JOB_LOG, "\n".join(["Loading checkpoint shards: 100%|##########| 4/4", *head, *lines]) + "\n",
              uid=1001, gid=1001)


def _holder(node: SimNode, gpu: int, proc: SimProcess) -> None:
    g = node.gpus[gpu]
    g.processes.append(proc)
    g.vram_used += proc.vram_bytes
    g.gfx_activity = 0


# Live leftover: the stale holder is a REAL process, so `kill` (a shell builtin no stub can
# intercept) really ends it. The KFD entry /sys/class/kfd/kfd/proc/<pid> is a symlink to the
# process's /proc/<pid>/cwd (a directory holding vram_<gpu_id>), so it vanishes the moment the
# process exits, as the kernel's KFD teardown removes it; the ps / amd-smi stubs list the pid
# only while /proc/<pid>/cwd resolves (not for a zombie either).
_PS_STUB = r"""
L="$R/.sim/live"
alive() { [ -d "/proc/$1/cwd/" ]; }
case "$*" in
'-e -o pid=,stat=,user=,comm=')
  cat "$L/ps.base"; for p in $(cat "$L/pids"); do alive "$p" && cat "$L/ps.$p"; done; exit 0 ;;
'-o comm= -p '*)
  p=$4; if alive "$p"; then cat "$L/comm.$p"; exit 0; fi; exit 1 ;;
*) printf "ps: unsupported option: %s\n" "$*" >&2; exit 1 ;;
esac
"""

_AMD_SMI_STUB = r"""
L="$R/.sim/live"
alive() { [ -d "/proc/$1/cwd/" ]; }
case "$*" in
'process --json')
  for p in $(cat "$L/pids"); do alive "$p" || { cat "$L/amd-smi/process.gone"; exit 0; }; done
  cat "$L/amd-smi/process.alive"; exit 0 ;;
'list --json') cat "$L/amd-smi/list" ;;
'static --json') cat "$L/amd-smi/static" ;;
'metric --json') cat "$L/amd-smi/metric" ;;
'version') cat "$L/amd-smi/version" ;;
*) printf 'usage: amd-smi [-h] ...\namd-smi: error: unrecognized arguments: %s\n' "$*" >&2; exit 2 ;;
esac
"""


class LiveHolderNode(SimNode):
    """A node whose stale VRAM holder on `gpu` is a real short-lived process (bounded: sleep 300)."""

    def __init__(self, *args, gpu: int = 3, name: str = "python3", user: str = "alice",
                 vram: int = 181 * GIB, **kw) -> None:
        super().__init__(*args, **kw)
        self.live = (gpu, name, user, vram)
        self.stub("ps", _PS_STUB)
        self.stub("amd-smi", _AMD_SMI_STUB)

    def materialize(self, directory: str | os.PathLike[str]) -> Path:
        gpu, name, user, vram = self.live
        g = self.gpus[gpu]
        g.vram_used += vram
        root = super().materialize(directory)
        live = root / ".sim" / "live"
        cwd = live / "holder"
        cwd.mkdir(parents=True)
        (cwd / f"vram_{gpu_id(g)}").write_text(f"{vram}\n")
        (cwd / f"sdma_{gpu_id(g)}").write_text("0\n")
        proc = subprocess.Popen(["sleep", "300"], cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        LIVE.append(proc)
        pid = proc.pid
        os.symlink(f"/proc/{pid}/cwd", root / "sys/devices/virtual/kfd/kfd/proc" / str(pid))
        (live / "pids").write_text(f"{pid}\n")
        (live / f"comm.{pid}").write_text(name[:15] + "\n")
        (live / f"ps.{pid}").write_text(system.render_ps([{"pid": pid, "stat": "Sl", "user": user, "comm": name}]))
        (live / "ps.base").write_text(system.render_ps([
            {"pid": 1, "stat": "Ss", "user": "root", "comm": "systemd"},
            {"pid": 1234, "stat": "Ss", "user": "root", "comm": "sshd"},
            {"pid": 2101, "stat": "Ssl", "user": "root", "comm": "slurmd"}]))
        smi = live / "amd-smi"
        smi.mkdir()
        (smi / "process.gone").write_text(amd_smi.render_process_json(self.gpus))
        g.processes.append(SimProcess(pid=pid, name=name, vram_bytes=vram, user=user))
        (smi / "process.alive").write_text(amd_smi.render_process_json(self.gpus))
        g.processes.pop()
        (smi / "list").write_text(amd_smi.render_list_json(self.gpus))
        (smi / "static").write_text(amd_smi.render_static_json(self.gpus, driver_version=self.driver_version))
        (smi / "metric").write_text(amd_smi.render_metric_json(self.gpus))
        (smi / "version").write_text(amd_smi.render_version(rocm=self.rocm_version or "N/A"))
        return root


def end_live_processes() -> None:
    """Kill and reap every live stand-in process (tests call this; a demo's ends after 300 s)."""
    while LIVE:
        proc = LIVE.pop()
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


atexit.register(lambda: end_live_processes())


def orphan_holder() -> SimNode:
    """GPU 3 nearly full, held by a python3 that no running Slurm job owns (job 4242 ended)."""
    base = healthy()
    node = LiveHolderNode(base.name, gpus=base.gpus, description="GPU 3 held by a leftover python3")
    # slurmd answers: only the new job's step (4243) runs here; the holder is in none.
    node.command("scontrol", "listpids", system.render_scontrol_listpids(
        [{"pid": 2101, "jobid": 4243, "stepid": "extern", "localid": None, "globalid": None}]))
    _job_log(node, [torch_oom_line(3, 2.0, 191.98, 1.21, 3.52, 20.0)])
    return node


def zombie_holder() -> SimNode:
    """GPU 5: a zombie python3 (ps STAT Z) still accounted 150 GiB of VRAM."""
    node = healthy()
    _holder(node, 5, SimProcess(pid=48211, name="python3", vram_bytes=150 * GIB, state="Z"))
    return node


def dead_holder() -> SimNode:
    """GPU 1: KFD and amd-smi list pid 39517 (pt_main_thread) that ps no longer shows."""
    node = healthy()
    _holder(node, 1, SimProcess(pid=39517, name="pt_main_thread", vram_bytes=188 * GIB, alive=False))
    return node


def holder_seen_from_a_container() -> SimNode:
    """dead_holder()'s GPU process seen from inside a docker container with its own PID namespace
    (/.dockerenv, PID 1 the container's python3): KFD's host PID 39517 is not in this `ps`, but the
    process is not dead; only the host can tell."""
    node = dead_holder()
    node.file("/.dockerenv", "", mode=0o755)
    node.file("/proc/1/comm", "python3\n")
    return node


#: the container of container_holder(): the docker id of TestDockerIDCentOS (neuvector/neuvector
#: share/system/cgroup_test.go, tests/fixtures/outputs/cgroup/centos-docker-systemd.txt)
HOLDER_CONTAINER = "9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d"


def container_holder() -> SimNode:
    """GPU 2 nearly full, held by a live python3 that runs in a docker container left running
    (jupyter-bob); no scheduler on the node. Its /proc/PID/cgroup is the real CentOS docker file."""
    node = healthy()
    pid = 73310
    _holder(node, 2, SimProcess(pid=pid, name="python3", vram_bytes=181 * GIB, user="root"))
    node.file(f"/proc/{pid}/cgroup", system.render_proc_cgroup_docker(HOLDER_CONTAINER))
    node.command("docker", "ps --no-trunc --format {{.ID}} {{.Names}}", stdout=f"{HOLDER_CONTAINER} jupyter-bob\n")
    node.remove_tool("scontrol")                     # a workstation-style node: no scheduler to ask
    return node


def fragmentation() -> SimNode:
    """Job log: PyTorch OOM asking 6.64 GiB with 7.10 GiB cached but unallocated (pytorch#138002, ComfyUI on ROCm)."""
    node = healthy()
    _job_log(node, [TORCH_FRAGMENTED])
    return node


def job_too_big() -> SimNode:
    """llama.cpp (HIP) cannot fit a 70B model: GPU 0 held by the job itself, 'cudaMalloc failed: out of memory'."""
    node = healthy()
    _holder(node, 0, SimProcess(pid=51230, name="llama-server", vram_bytes=181 * GIB, user="alice"))
    # the job runs: busy, memory traffic and power near the cap (the busy-healthy demo's real load)
    node.gpus[0].gfx_activity, node.gpus[0].mem_activity, node.gpus[0].power_w = 100, 40, 690.0
    _job_log(node, GGML_LINES + ["llama_init_from_model: failed to initialize the context: failed to allocate "
                                 "compute pp buffers"])
    return node


def host_oom() -> SimNode:
    """The kernel OOM killer took the job's python3 (host RAM), GPUs are fine."""
    node = healthy()
    node.add_kernel_log(messages("oom_kill"), at=40210.5)
    return node


def vram_without_process() -> SimNode:
    """Every GPU idle with 46111 MiB of VRAM used and no process in KFD's list, under amdgpu
    6.16.6: the figures of ROCm/rocm-systems#8263 (8x MI325X, 46111/262128 MB each), on MI300X."""
    node = healthy()
    node.driver_version = "6.16.6"
    for g in node.gpus:
        g.vram_used = 46111 * 1024 * 1024
    return node


#: (name, description, builder, decisive step, diagnosis, extra vars)
def apu_carveout_full() -> SimNode:
    """Ryzen AI MAX+ 395 (gfx1151) at the BIOS default: a 512 MiB VRAM carve-out, nearly full, and 110 GiB
    of GTT where a loaded model lives: amdgpu puts allocations in GTT when it is the larger pool
    (ROCm/rocm-systems#351). Sizes from ROCm/rocm-systems#8475 (mem_info_vram_total 536870912, GTT
    118111600640 bytes); healthy."""
    g = strix_halo_gpu(vram_total=536870912, vram_used=509 * 1024 * 1024, gtt_total=118111600640, gtt_used=21 * GIB,
                       edge_temp=52.0, junction_temp=54.0, power_w=38.0)
    from rocmdoctor.simnode.system import rocblas_index

    node = SimNode("strix-apu", gpus=[g], description="Strix Halo APU: full 512 MiB carve-out, model in GTT")
    return node.file(rocblas_index("gfx1151"), "")   # a healthy node's ROCm has kernels for its GPU


CASES: list[tuple[str, str, Callable[[], SimNode], str, str, dict]] = [
    ("oom-orphan-process", "GPU 3 at 95% VRAM, held by a python3 that no running Slurm job owns (fixable: kill)",
     orphan_holder, "procs", "orphan-process-holds-vram", {"log": JOB_LOG}),
    ("oom-zombie-process", "GPU 5 holds 150 GiB for a zombie python3 (ps STAT Z)",
     zombie_holder, "procs", "dead-process-holds-vram", {}),
    ("oom-dead-process", "GPU 1 holds 188 GiB for pid 39517, which KFD lists but ps does not",
     dead_holder, "procs", "dead-process-holds-vram", {}),
    ("oom-container-holder", "GPU 2 nearly full, held by python3 in the docker container jupyter-bob (no scheduler)",
     container_holder, "vram", "vram-held-by-unscheduled-process", {}),
    ("oom-fragmentation", "PyTorch HIP OOM with 203 GiB free: allocator fragmentation (use --log "
     + JOB_LOG + ")", fragmentation, "applog", "pytorch-fragmentation", {"log": JOB_LOG}),
    ("oom-job-too-big", "llama.cpp 'cudaMalloc failed: out of memory' on GPU 0, which its own job fills (use --log "
     + JOB_LOG + ")", job_too_big, "applog", "job-needs-more-vram", {"log": JOB_LOG}),
    ("oom-host-ram", "the kernel OOM killer killed python3: host RAM, not VRAM, ran out",
     host_oom, "hostoom", "host-ram-exhausted", {}),
    ("oom-vram-no-process", "45 GiB of VRAM used on every idle GPU, no process holds any (amdgpu 6.16.6)",
     vram_without_process, "unowned", "vram-held-by-no-process", {}),
    ("apu-carveout-full", "Strix Halo APU: its 512 MiB VRAM carve-out 99% used, the model in 110 GiB of GTT: healthy",
     apu_carveout_full, "vram", "", {}),
]


SCENARIOS = from_cases(CASES, (RUNBOOK,))
