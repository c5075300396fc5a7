"""Slow GPU jobs: one simulated node per cause the gpu-slow runbook names, and a busy healthy one.

Every node starts from a busy healthy 8x MI300X: one Slurm job per GPU, at full clock, each job's
CPUs on its GPU's NUMA node. File formats, with their sources in each fixture folder's SOURCES.md:
- /proc/pressure/*: tests/fixtures/outputs/psi/ (idle: kernel 4.20 `grep -n . /proc/pressure/*`;
  memory thrashing: the PSI v2 patch posting's sample);
- cgroup cpu.stat / cpu.max: tests/fixtures/outputs/cgroup-cpu/ (a throttled k0s pod, podman --cpus);
- /proc/PID/status CPU lists, node cpulists: tests/fixtures/outputs/proc-status/;
- /proc/PID/cgroup: Slurm's cgroup v2 layout (slurm.schedmd.com/cgroup_v2.html,
  `/system.slice/slurmstepd.scope/job_<id>/step_<n>/user/task_<n>`), Kubernetes' from the real
  bottlerocket file in tests/fixtures/outputs/cgroup/;
- KFD's proc/<pid>/ entries (vram_<gpuid>, queues/<qid>/gpuid): kfd_process.c, simnode/sysfs.py.
"""

from __future__ import annotations

from typing import Any

from rocmdoctor.simnode.formats.system import render_scontrol_listpids
from rocmdoctor.simnode.gpu import GIB, SimProcess
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.nodes import healthy_mi300x
from rocmdoctor.simnode.system import NODE_CPUS
from rocmdoctor.simnode.scenarios import Scenario, from_cases

RUNBOOK = "gpu-slow"
#: a machine thrashing (the PSI v2 patch posting, psi/memory-thrashing-lkml-psi-v2.txt)
PSI_MEMORY_THRASHING = ("some avg10=70.24 avg60=68.52 avg300=69.91 total=3559632828\n"
                        "full avg10=57.59 avg60=58.06 avg300=60.38 total=3300487258\n")
#: a k0s pod throttled by its CPU limit (cgroup-cpu/v2-cpu.stat-k0s-pod-throttled.txt)
CPU_STAT_THROTTLED = ("usage_usec 8099091679\nuser_usec 8089018953\nsystem_usec 10072726\nnr_periods 7607\n"
                      "nr_throttled 4174\nthrottled_usec 3322148518\nnr_bursts 0\nburst_usec 0\n")
#: an unlimited job cgroup (cpu.max "max"): the k0s file's keys, no period counted (the kernel counts
#: periods only under a quota); usage values of the k0s container file
CPU_STAT_UNTHROTTLED = ("usage_usec 988930037\nuser_usec 980846160\nsystem_usec 8083877\nnr_periods 0\n"
                        "nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n")
POD_CGROUP = ("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod7ce3e3e8_54ab_4c3c_9cf1_bd7b50da8a49.slice/"
              "cri-containerd-0f4fd0c7dbd7b9a2a3a1b1b8e6a2b6b7d6c5f5e8e0a9b1c2d3e4f5a6b7c8d9e0f1.scope")


def _status(name: str, pid: int, uid: int, threads: int, cpus: str, mems: str) -> str:
    """The /proc/PID/status lines the probe reads, in proc(5)'s order and tab layout."""
    return (f"Name:\t{name}\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t{pid}\nPid:\t{pid}\n"
            f"Uid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t{uid}\t{uid}\t{uid}\t{uid}\nThreads:\t{threads}\n"
            f"Cpus_allowed_list:\t{cpus}\nMems_allowed_list:\t{mems}\n")


def add_job(node: SimNode, gpu: int, pid: int, *, name: str = "python3", user: str = "alice", uid: int = 1001,
            vram: int = 150 * GIB, threads: int = 38, cpus: str | None = None, mems: str | None = None,
            cgroup: str | None = None, cpu_max: str = "max 100000", cpu_stat: str = CPU_STAT_UNTHROTTLED,
            env: dict[str, str] | None = None, libs: tuple[str, ...] = ()) -> SimNode:
    """A process computing on GPU `gpu`: KFD entry, status, cgroup (v2) with its CPU files, environ,
    and, for `libs`, a /proc/PID/maps with one executable mapping per library (proc(5)'s columns:
    address perms offset dev inode pathname)."""
    g = node.gpus[gpu]
    g.processes.append(SimProcess(pid=pid, name=name, vram_bytes=vram, user=user, state="R"))
    g.vram_used += vram
    numa = 0 if gpu < 4 else 1
    node.file(f"/proc/{pid}/status", _status(name, pid, uid, threads, cpus or NODE_CPUS[numa], mems or str(numa)))
    path = cgroup or f"/system.slice/slurmstepd.scope/job_{4100 + gpu}/step_0/user/task_0"
    node.file(f"/proc/{pid}/cgroup", f"0::{path}\n")
    node.file(f"/sys/fs/cgroup{path}/cpu.max", cpu_max + "\n")
    node.file(f"/sys/fs/cgroup{path}/cpu.stat", cpu_stat)
    environ = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": f"/home/{user}", **(env or {})}
    node.file(f"/proc/{pid}/environ", "".join(f"{k}={v}\0" for k, v in environ.items()))
    base = 0x7f2a58000000
    node.file(f"/proc/{pid}/maps", "".join(
        f"{base + i * 0x4000000:012x}-{base + i * 0x4000000 + 0x29c3000:012x} r-xp 00000000 103:02 {2360934 + i:<7d}"
        f"                   {lib}\n" for i, lib in enumerate(libs)))
    return node


def _busy(node: SimNode, *gpus: int) -> None:
    for i in gpus:
        g = node.gpus[i]
        g.gfx_activity, g.mem_activity, g.sclk_mhz, g.power_w, g.junction_temp = 100, 62, 2100, 712.0, 78.0


def occupy(node: SimNode, *, keep_clocks: bool = False, every_libs: tuple[str, ...] = (), **job: Any) -> SimNode:
    """One Slurm job per GPU at full clock (or, with keep_clocks, as the node's builder set the GPUs:
    held low, capped, throttled), each on its GPU's NUMA node and mapping `every_libs`, the host idle;
    `job` changes the job on GPU 0."""
    for i in range(len(node.gpus)):
        add_job(node, i, 51000 + i, **{"libs": every_libs, **(job if i == 0 else {})})
    if not keep_clocks:
        _busy(node, *range(len(node.gpus)))
    # slurmd's view: each Slurm job's one task (a job moved into a pod's cgroup is not Slurm's)
    node.command("scontrol", "listpids", render_scontrol_listpids(
        [{"pid": 51000 + i, "jobid": 4100 + i, "stepid": 0, "localid": 0, "globalid": 0}
         for i in range(len(node.gpus)) if i or "cgroup" not in job]))
    return node


def busy_healthy(**job: Any) -> SimNode:
    """8x MI300X busy with one job per GPU, clocks up, CPUs on the GPU's NUMA node."""
    node = occupy(healthy_mi300x(), **job)
    node.description = "8x MI300X busy with one job per GPU, clocks up, CPUs on the GPU's NUMA node"
    return node


def shared_gpu() -> SimNode:
    """GPU 0 runs job 4100 and an ollama server bob left running in a Kubernetes pod."""
    node = busy_healthy()
    add_job(node, 0, 61234, name="ollama", user="bob", uid=1002, vram=40 * GIB, threads=24, cgroup=POD_CGROUP)
    return node


def cpu_quota() -> SimNode:
    """The job on GPU 0 runs in a pod whose CPU limit throttles it in 55 % of periods."""
    return busy_healthy(cgroup=POD_CGROUP, cpu_max="200000 100000", cpu_stat=CPU_STAT_THROTTLED)


def one_cpu() -> SimNode:
    """The Slurm job on GPU 0 asked for no CPUs beyond the default: one CPU for 38 threads."""
    return busy_healthy(cpus="5", threads=38)


def numa_remote() -> SimNode:
    """The job on GPU 0 (NUMA node 0) is bound to node 1's CPUs and memory."""
    return busy_healthy(cpus=NODE_CPUS[1], mems="1")


def memory_pressure() -> SimNode:
    node = busy_healthy()
    node.file("/proc/pressure/memory", PSI_MEMORY_THRASHING)
    return node


def perf_level_low() -> SimNode:
    """A benchmark's `rocm-smi --setperflevel low` left on all 8 GPUs: busy at the lowest clock."""
    from rocmdoctor.simnode.scenarios.real_causes_ops import AMD_SMI_PERF_LEVEL_STUB

    node = busy_healthy()
    for g in node.gpus:
        g.perf_level, g.sclk_mhz, g.power_w = "low", 500, 240.0
    return node.stub("amd-smi", AMD_SMI_PERF_LEVEL_STUB)     # `set --perf-level AUTO -g BDF` writes auto


def partitioned() -> SimNode:
    """The GPUs were left in CPX/NPS4 (the amd-smi changelog's example modes)."""
    node = busy_healthy()
    for g in node.gpus:
        g.compute_partition, g.memory_partition = "CPX", "NPS4"
    return node


def serialized() -> SimNode:
    """The job on GPU 0 runs with AMD_SERIALIZE_KERNEL=3 from a debugging session."""
    return busy_healthy(env={"AMD_SERIALIZE_KERNEL": "3", "AMD_LOG_LEVEL": "4"})


def _pcie_narrow() -> SimNode:
    from rocmdoctor.simnode.scenarios.hardware import pcie_narrow

    return occupy(pcie_narrow())


def _xgmi_dropped() -> SimNode:
    from rocmdoctor.simnode.scenarios.hardware import xgmi_dropped

    return occupy(xgmi_dropped())


def _thermal(builder: str) -> Any:
    def make() -> SimNode:
        from rocmdoctor.simnode.scenarios import thermal

        return occupy(getattr(thermal, builder)(), keep_clocks=True)
    return make


def io_pressure() -> SimNode:
    """The jobs' data loaders wait on storage: I/O stalled most of the last minute (the PSI format; the
    figures are the PSI v2 posting's thrashing sample, psi/memory-thrashing-lkml-psi-v2.txt)."""
    node = busy_healthy()
    node.file("/proc/pressure/io", PSI_MEMORY_THRASHING)
    return node


def iommu_translated() -> SimNode:
    """8 busy GPUs with the IOMMU translating their DMA: no iommu=pt, the kernel's own
    `iommu: Default domain type: Translated` line (iommu/dmesg-default-domain-translated-fwupd5304.txt)."""
    from rocmdoctor.simnode.formats.kernel_lines import IOMMU_TRANSLATED

    node = busy_healthy()
    node.cmdline = node.cmdline.replace(" iommu=pt", "")
    return node.add_kernel_log([IOMMU_TRANSLATED], at=0.718058)


#: a job log with MIOpen's warning for a GPU without its kernel database (MIOpen#2123, verbatim)
SLOW_LOG = "/home/alice/jobs/conv-4100.out"


def log_fallback() -> SimNode:
    node = busy_healthy()
    node.file(SLOW_LOG, "MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx1030_12.kdb Performance may "
                        "degrade. Please follow instructions to install: "
                        "https://github.com/ROCmSoftwarePlatform/MIOpen#installing-miopen-kernels-package\n",
              uid=1001, gid=1001)
    return node


CASES = [
    ("gpu-slow-shared", "job 4100's GPU 0 also runs bob's ollama server in a Kubernetes pod (40 GiB VRAM)",
     shared_gpu, "sharing", "gpu-shared-with-other-process"),
    ("gpu-slow-cpu-quota", "the job on GPU 0 runs in a pod with a 2-CPU limit, throttled in 55 % of its periods",
     cpu_quota, "quota", "cpu-quota-throttled"),
    ("gpu-slow-one-cpu", "Slurm job on GPU 0 may use 1 CPU for 38 threads (no --cpus-per-task)",
     one_cpu, "cpus", "host-cpu-starvation"),
    ("gpu-slow-numa", "the job on GPU 0 (NUMA node 0) is bound to NUMA node 1's CPUs", numa_remote,
     "numa", "numa-mismatch"),
    ("gpu-slow-memory-pressure", "the host thrashes: every task stalled on memory 58 % of the last minute",
     memory_pressure, "pressure", "host-memory-pressure"),
    ("gpu-slow-perf-level", "performance level forced to `low` on all 8 busy GPUs", perf_level_low,
     "perflevel", "perf-level-forced"),
    ("gpu-slow-partitioned", "the MI300X GPUs were left in CPX / NPS4 partition modes", partitioned,
     "partition", "gpu-partition-mode"),
    ("gpu-slow-serialized", "the job on GPU 0 runs with AMD_SERIALIZE_KERNEL=3 and AMD_LOG_LEVEL=4", serialized,
     "flags", "serializing-env"),
    ("gpu-slow-pcie-x8", "busy node whose GPU 6 trained its link at x8 of x16", _pcie_narrow,
     "pcie", "pcie-link-degraded"),
    ("gpu-slow-xgmi-dropped", "busy node whose GPU 5 is not in the XGMI hive of the other 7", _xgmi_dropped,
     "xgmi", "xgmi-link-down"),
    ("gpu-slow-clocks-held", "8 busy MI300X held at 56-59 MHz with no cap, violation or forced level (#4414's readings)",
     _thermal("clock_held_low"), "clocks", "clocks-held-low"),
    ("gpu-slow-power-capped", "busy node whose GPU 4 is capped at 400 W of its default 750 W", _thermal("power_capped"),
     "power", "power-cap-low"),
    ("gpu-slow-throttled", "busy node whose GPU 2 reports 37.5 % thermal violation residency", _thermal("violation"),
     "violations", "gpu-throttling"),
    ("gpu-slow-io-pressure", "the host's tasks waited on I/O most of the last minute", io_pressure,
     "pressure", "io-starvation"),
    ("gpu-slow-iommu-translated", "8 busy GPUs with the IOMMU translating their DMA (no iommu=pt)", iommu_translated,
     "iommu", "p2p-through-host"),
    ("gpu-slow-log-fallback", "the job's log: MIOpen has no kernel database for its GPU (--var log=" + SLOW_LOG + ")",
     log_fallback, "gpus", "slow-path-fallback", {"log": SLOW_LOG}),
]

SCENARIOS = from_cases(CASES, (RUNBOOK,))
SCENARIOS.append(Scenario(
    "gpu-slow-busy-healthy", "8x MI300X busy, one job per GPU at full clock, CPUs on the GPU's NUMA node",
    busy_healthy, (RUNBOOK,), {"state": "pass", "step": None, "diagnosis": None, "vars": {}}))
