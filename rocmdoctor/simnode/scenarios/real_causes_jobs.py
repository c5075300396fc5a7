"""Simulated nodes for root causes that show in a job's own log (issue "the root causes real
threads show"): the node is healthy, the job is not.

- igpu-used-by-job: a Ryzen 7800X3D desktop whose discrete RX 7900 XT is HIP device 0 and whose
  iGPU (gfx1036) device 1; llama.cpp spreads the model over both and aborts with "ROCm error:
  invalid device function" on device 1 (the failure of ggml-org/llama.cpp#22013, whose log
  format rocmdoctor.simnode.formats.ggml reproduces; the same fault in lemonade-sdk/lemonade#2609
  and lemonade-sdk/llamacpp-rocm#96). The GPUs are those of real_causes.igpu_first in the
  other order, so the check that only looks at device 0 passes here.
"""

from __future__ import annotations

from dataclasses import replace

from rocmdoctor.simnode.formats import ggml
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.scenarios import from_cases

JOB_LOG = "/scratch/llama-server.log"


def igpu_used_by_job() -> SimNode:
    """dGPU first, iGPU second, and a llama.cpp job that failed on the iGPU."""
    from rocmdoctor.simnode.scenarios.real_causes import igpu_first

    igpu, dgpu = igpu_first().gpus
    gpus = [replace(dgpu, index=0), replace(igpu, index=1)]
    node = SimNode("ws-7800x3d-llama", gpus=gpus,
                   description="RX 7900 XT is HIP device 0, the iGPU (gfx1036) device 1; llama.cpp failed on device 1")
    lines = [*ggml.device_list(gpus),
             "common_init_from_params: warming up the model with an empty run - please wait ... (--no-warmup to disable)",
             *ggml.kernel_failure(1), "Aborted (core dumped)"]
    node.file(JOB_LOG, "\n".join(lines) + "\n", uid=1001, gid=1001)
    return node


SCENARIOS = from_cases([
    ("igpu-used-by-job", "llama.cpp on an RX 7900 XT + Ryzen iGPU: 'ROCm error: invalid device function' on "
     "device 1, the iGPU (use --log " + JOB_LOG + ")", igpu_used_by_job, "job_gpus", "igpu-used-by-job",
     {"log": JOB_LOG}),
], ("gpu-not-visible",))


#: the job's own line: ROCm/legacy-rocm-build#2934 (Pop!_OS 22.04, ROCm 6.0), verbatim
CLINFO_LOG = "/home/jacopo/clinfo.txt"
RADEONSI_UNDEFINED = ("clinfo: symbol lookup error: /usr/lib/x86_64-linux-gnu/gallium-pipe/pipe_radeonsi.so: "
                      "undefined symbol: amdgpu_va_get_start_addr")


def libdrm_shadowed() -> SimNode:
    """A healthy node where ROCm's amdgpu packages put their libdrm (/opt/amdgpu, listed in
    /etc/ld.so.conf.d) ahead of the distribution's, and Mesa's radeonsi, built against the newer
    one, dies on a missing symbol."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()  # its loader cache lists ROCm's /opt/amdgpu libdrm first (simnode.tools)
    node.description = "ROCm's /opt/amdgpu libdrm_amdgpu listed before the distribution's; clinfo dies in Mesa's radeonsi"
    node.file(CLINFO_LOG, RADEONSI_UNDEFINED + "\n", uid=1001, gid=1001)
    return node


SCENARIOS += from_cases([
    ("libdrm-shadowed", "ROCm's libdrm_amdgpu (/opt/amdgpu) loaded ahead of the distribution's: Mesa's radeonsi "
     "dies on 'undefined symbol: amdgpu_va_get_start_addr' (use --log " + CLINFO_LOG + ")", libdrm_shadowed,
     "log", "libdrm-mismatch", {"log": CLINFO_LOG}),
], ("kernel-driver-mismatch",))
