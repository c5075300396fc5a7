"""Wrong results: simulated nodes for the wrong-results runbook, each busy with one job per GPU
(gpu_slow.occupy) and one cause.

The library paths are the forms the threads show: PyTorch's ROCm wheel bundles its own
libamdhip64 in site-packages/torch/lib while a system ROCm lives in /opt/rocm-X.Y.Z/lib
(pytorch/pytorch#141014's `ldd`: /opt/rocm-6.2.4/... and .../site-packages/torch/lib/libamdhip64.so);
/proc/PID/maps lists each mapped file by its real path (proc(5)).
"""

from __future__ import annotations

from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.nodes import healthy_mi300x
from rocmdoctor.simnode.scenarios import Scenario, from_cases
from rocmdoctor.simnode.scenarios.gpu_slow import occupy

RUNBOOK = "wrong-results"
TORCH_LIB = "/home/alice/venv/lib/python3.10/site-packages/torch/lib"
WHEEL_LIBS = (f"{TORCH_LIB}/libamdhip64.so", f"{TORCH_LIB}/librocblas.so", f"{TORCH_LIB}/libMIOpen.so")
SYSTEM_LIBS = ("/opt/rocm-6.2.4/lib/libamdhip64.so.6.2.60204", "/opt/rocm-6.2.4/lib/librocblas.so.4.2.60204")


def one_rocm() -> SimNode:
    """Every job maps only its wheel's ROCm libraries, on a node with ROCm 7.2.0 (no documented
    wrong-result bug of data known_wrong_results applies)."""
    from rocmdoctor.simnode.gpu import mi300x_gpus

    node = occupy(SimNode("mi300x-01", gpus=mi300x_gpus(8), rocm_version="7.2.0"), every_libs=WHEEL_LIBS)
    node.description = "8x MI300X (ROCm 7.2.0) busy, each job with one ROCm (its PyTorch wheel's)"
    return node


def known_issue_release() -> SimNode:
    """ROCm 6.2.0 jobs that map the wheel's librocsparse: its release notes document a bsrgemm race giving
    wrong results, fixed in rocSPARSE 3.3.0 (ROCm 6.3.0)."""
    return occupy(healthy_mi300x(), every_libs=WHEEL_LIBS + (f"{TORCH_LIB}/librocsparse.so",))


def two_hip_runtimes() -> SimNode:
    """The job on GPU 0 maps the wheel's libamdhip64 and /opt/rocm-6.2.4's (an extension built against
    the system ROCm, pytorch/pytorch#141014's layout)."""
    return occupy(healthy_mi300x(), every_libs=WHEEL_LIBS, libs=WHEEL_LIBS + SYSTEM_LIBS[:1])


def two_installs() -> SimNode:
    """The job on GPU 0 runs the wheel's HIP runtime with /opt/rocm-6.2.4's rocBLAS."""
    return occupy(healthy_mi300x(), every_libs=WHEEL_LIBS, libs=(WHEEL_LIBS[0], SYSTEM_LIBS[1]))


def _override() -> SimNode:
    from rocmdoctor.simnode.scenarios.real_causes_ops import gfx_override_mismatch

    return occupy(gfx_override_mismatch())


def wheel_for_old_rocm() -> SimNode:
    """The jobs run PyTorch 2.3.1+rocm5.7's own libraries on the ROCm 6.2 driver (amdgpu 6.8.5), which AMD
    tested with user space 6.0-7.0 only (the user and kernel-space support matrix)."""
    node = occupy(healthy_mi300x(), every_libs=WHEEL_LIBS)
    node.file(TORCH_LIB.rsplit("/torch/lib", 1)[0] + "/torch-2.3.1+rocm5.7.dist-info/METADATA",
              "Metadata-Version: 2.1\nName: torch\nVersion: 2.3.1+rocm5.7\n")
    return node


def xnack_asked_on_gfx11() -> SimNode:
    """A Strix Halo box (Radeon 8060S, gfx1151) whose llama-server was started with HSA_XNACK=1 for
    unified memory: GFX10 and later never run a process with XNACK on (kfd_process.c)."""
    from rocmdoctor.simnode.gpu import strix_halo_gpu
    from rocmdoctor.simnode.node import SimNode as Node

    g = strix_halo_gpu(vram_total=96 * 1024 ** 3, vram_used=300 * 1024 * 1024, edge_temp=45.0, junction_temp=46.0, power_w=12.0)
    node = Node("evo-x2", gpus=[g], description="Strix Halo, llama-server started with HSA_XNACK=1")
    return occupy(node, name="llama-server", env={"HSA_XNACK": "1"}, vram=20 * 1024 ** 3)


def xnack_on_mi300x() -> SimNode:
    """8x MI300X, the job on GPU 0 with HSA_XNACK=1: gfx942 selects XNACK per process, so it gets it."""
    return occupy(healthy_mi300x(), every_libs=WHEEL_LIBS, env={"HSA_XNACK": "1"})


def _ecc() -> SimNode:
    from rocmdoctor.simnode.scenarios.hardware import ecc_uncorrectable

    return occupy(ecc_uncorrectable())


SCENARIOS = from_cases([
    ("wrong-two-hip-runtimes", "the job on GPU 0 maps two libamdhip64: its PyTorch wheel's and /opt/rocm-6.2.4's",
     two_hip_runtimes, "libs", "mixed-rocm-libraries"),
    ("wrong-two-rocm-installs", "the job on GPU 0 runs the wheel's HIP with /opt/rocm-6.2.4's rocBLAS",
     two_installs, "libs", "mixed-rocm-libraries"),
    ("wrong-gfx-override", "busy MI300X node with HSA_OVERRIDE_GFX_VERSION=10.3.0 in its environment",
     _override, "override", "gfx-override-mismatch"),
    ("wrong-known-issue-release", "ROCm 6.2.0 jobs mapping librocsparse, whose bsrgemm race the 6.3.0 notes fixed",
     known_issue_release, "known", "known-bad-combination"),
    ("wrong-wheel-for-old-rocm", "jobs run PyTorch 2.3.1+rocm5.7's libraries on the ROCm 6.2 driver (tested with 6.0-7.0)",
     wheel_for_old_rocm, "wheel", "framework-built-for-other-rocm"),
    ("wrong-xnack-not-given", "Strix Halo (gfx1151) running llama-server with HSA_XNACK=1: KFD never gives GFX11 XNACK",
     xnack_asked_on_gfx11, "xnack", "xnack-mode-mismatch"),
    ("wrong-ecc-uncorrectable", "busy node whose GPU 3 counted 2 uncorrectable HBM errors", _ecc,
     "ecc", "memory-errors"),
], (RUNBOOK,)) + [Scenario("wrong-one-rocm", "8x MI300X (ROCm 7.2.0) busy, each job with one ROCm (its PyTorch wheel's)",
                           one_rocm, (RUNBOOK,), {"state": "pass", "step": None, "diagnosis": None, "vars": {}})]
