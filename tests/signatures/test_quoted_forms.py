"""Messages read as what the code that prints them means, in every form a thread quotes them: the call RCCL names is
the one that failed (hipIpcGetMemHandle exports a handle: its failure is the handle's creation, not a peer that cannot
map it), UCX's rocm_ipc line as an issue title quotes it (without its address), PyTorch's C10_CUDA_CHECK_WARN form
of a HIP error ("HIP warning: ...") beside the raised one, and ROCr's memory fault with its handle and address elided
(a value the line does not carry is said to be missing, not left as a hole in the sentence)."""

from __future__ import annotations

import pytest

from rocmdoctor.engine.signatures import explain_text


@pytest.mark.parametrize("line,signature,diagnosis", [
    # verbatim: ROCm/rccl-tests#120 (ROCm 6.4 image, 8 GPUs)
    ("guest:5161:5196 [1] /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/"
     "out/ubuntu-22.04/22.04/build/rccl/hipify/src/transport/p2p.cc:239 NCCL WARN hipIpcGetMemHandle failed : invalid "
     "argument", "rccl-ipc-get-mem-handle-failed", "gpu-ipc-handle-create-failed"),
    # verbatim: openucx/ucx#5485's title
    ("rocm_ipc_md.c:69 UCX ERROR Failed to create ipc", "ucx-rocm-ipc-create-failed", "gpu-ipc-handle-create-failed"),
    # verbatim: openucx/ucx#10087
    ("[1724610589.249079] [cousteau:2779987:0]     rocm_ipc_md.c:79   UCX  ERROR Failed to create ipc for "
     "0x7f9030c18000/8000", "ucx-rocm-ipc-create-failed", "gpu-ipc-handle-create-failed"),
    # verbatim: Comfy-Org/ComfyUI#10997 (RX 9070, ROCm 7.1 nightly torch)
    ("/home/asuna/AI/ComfyUI/comfy/k_diffusion/sampling.py:1391: UserWarning: HIP warning: an illegal memory access was "
     "encountered (Triggered internally at /pytorch/aten/src/ATen/hip/impl/HIPGuardImplMasqueradingAsCUDA.h:83.)",
     "torch-hip-illegal-address", "framework-bug-memory-fault"),
    # verbatim: vladmandic/sdnext#913's syslog (RX 7900 XTX, torch 2.0.0+rocm5.4.2): amdkfd kfd_ioctl_create_queue
    ("kernel: amdgpu: Failed to map wptr bo to GART", "kfd-wptr-bo-gart-map-failed", "hw-queue-creation-failed"),
    # verbatim: openxla/xla#8692 (JAX on ROCm; XLA's wrap of hipGraphLaunch's error)
    ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch HIP graph: HIP_ERROR_InvalidValue",
     "xla-hip-graph-call-failed", "hip-graph-call-failed"),
    # verbatim: ROCm/legacy-rocm-build#3989 (pip's line before "No matching distribution found", quoted alone)
    ("ERROR: Could not find a version that satisfies the requirement onnxruntime-rocm",
     "pip-rocm-package-no-matching-distribution", "rocm-wheel-index-missing"),
])
def test_the_line_means_what_its_code_does(line: str, signature: str, diagnosis: str) -> None:
    (m,) = [m for m in explain_text(line) if m.signature_id == signature]
    assert m.diagnosis == diagnosis and m.quote.endswith(line)


def test_a_version_list_from_the_index_is_not_read_as_a_missing_index() -> None:
    # the index has the package, not that version: another reading (pip-torch-version-not-built-for-rocm's family)
    line = "ERROR: Could not find a version that satisfies the requirement tensorflow-rocm==2.4 (from versions: 2.9.1, 2.10.0)"
    assert not [m for m in explain_text(line) if m.signature_id == "pip-rocm-package-no-matching-distribution"]


def test_a_cut_line_without_the_ucx_form_is_not_read_as_it() -> None:
    assert not [m for m in explain_text("Failed to create ipc for the buffer") if m.signature_id == "ucx-rocm-ipc-create-failed"]


def test_a_memory_fault_with_its_address_elided_reads_the_same() -> None:
    # verbatim: ROCm/legacy-rocm-build#5848 (RX 9070 XT, ROCm 7.1.1): the reporter dropped the handle and address
    (m,) = [m for m in explain_text("Memory access fault by GPU node-1.\nReason: Page not present or supervisor privilege.")
            if m.signature_id == "rocr-memory-fault-bad-access"]
    assert m.diagnosis == "framework-bug-memory-fault"
    assert "touched address (not in the line), which this process" in m.means
    (full,) = [m for m in explain_text("Memory access fault by GPU node-1 (Agent handle: 0x5be203805300) on address "
                                        "0x785159e0b000. Reason: Page not present or supervisor privilege.")
               if m.signature_id == "rocr-memory-fault-bad-access"]
    assert "touched address 0x785159e0b000, which" in full.means
