"""Build, load and transport failures read from the code that prints them (issue 41, batches 2026-11-28o and p's
fixes): clang's undeclared CUDA library name in a hipified source, a package linked against PyTorch's CUDA-only
libtorch_cuda.so, hiprtc without clang's runtime wrapper header (AMD's ROCm 4.3.1 known issue), pip finding no
hip-python (published on TestPyPI), ld's versioned ROCr symbol and unlinked ROCm library, an LLVM assertion, RCCL and
UCX without the GPU-NIC peer-memory link, the offload runtime missing at link, HIP finding no GPU on Windows, and
OpenCL's C++ bindings throwing on clGetPlatformIDs, which means something else when rocminfo failed beside it. Lines
verbatim from the threads each signature names."""

from __future__ import annotations

import pytest

from rocmdoctor.engine.signatures import explain_text

# ROCm/apex#132
APEX = "/home/user/code/apex/csrc/fused_dense_hip.hip:63:7: error: use of undeclared identifier 'CUBLAS_COMPUTE_64F'"
# evshiron/rocm_lab#1
TORCHAUDIO = "OSError: libtorch_cuda.so: cannot open shared object file: No such file or directory"
# cupy/cupy#5849
HIPRTC = "HIPRTC compilation error: <built-in>:1:10: fatal error: '__clang_hip_runtime_wrapper.h' file not found"
# ROCm/hip-python#33
PIP = "ERROR: No matching distribution found for hip-python"
# LuxCoreRender/LuxCore#628, and ROCm's clinfo beside a failing rocminfo (the corpus case
# rx480-libvirt-rebind-amdgpu-after-vm-stop-smu7-oops)
CL_THROW = "terminate called after throwing an instance of 'cl::Error'\n  what():  clGetPlatformIDs\n"
ROCMINFO_FAIL = ("hsa api call failure at line 900, file: /home/jenkins/jenkins-root/workspace/compute-rocm-rel-1.9/"
                 "rocminfo/rocminfo.cc. Call returned 4104")


def _only(text: str):  # type: ignore[no-untyped-def]
    found = explain_text(text)
    assert len(found) == 1, [m.signature_id for m in found]
    return found[0]


def test_opencl_cpp_bindings_without_a_platform_read_as_no_registered_icd() -> None:
    m = next(m for m in explain_text(CL_THROW) if m.signature_id == "opencl-cpp-get-platforms-failed")
    assert (m.diagnosis, m.context_line) == ("opencl-icd-not-registered", "")


def test_a_failing_rocminfo_beside_it_makes_it_the_runtime_that_did_not_start() -> None:
    m = next(m for m in explain_text(f"{ROCMINFO_FAIL}\n\n{CL_THROW}")
             if m.signature_id == "opencl-cpp-get-platforms-failed")
    assert m.diagnosis == "rocm-runtime-init-failed"
    assert m.context_line.endswith("Call returned 4104") and "not what failed" in m.means


# ROCm/hip#3910 (hipInfo of TheRock's Windows build) and kyuz0/amd-strix-halo-toolboxes#53 (llama.cpp on Linux)
HIPINFO_WINDOWS = ('checkHipErrors() HIP API error = 0100 "no ROCm-capable device is detected" from file '
                   '<C:\\home\\runner\\_work\\rockrel\\rockrel\\rocm-systems\\projects\\hip-tests\\samples\\1_Utils\\hipInfo\\'
                   'hipInfo.cpp>, line 181.')
GGML_LINUX = "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected"


def test_hip_finding_no_gpu_on_windows_gets_windows_causes() -> None:
    first = explain_text(HIPINFO_WINDOWS)[0]
    assert (first.signature_id, first.diagnosis) == ("hip-no-device-windows", "windows-hip-runtime-finds-no-gpu")
    assert "display driver" in first.means and "/dev/kfd" in first.means
    assert "hip-no-rocm-capable-device" not in [m.signature_id for m in explain_text(HIPINFO_WINDOWS)]


def test_hip_finding_no_gpu_on_linux_leaves_the_linux_causes_open() -> None:
    m = next(m for m in explain_text(GGML_LINUX) if m.signature_id == "hip-no-rocm-capable-device")
    assert "user-not-in-render-group" in m.leaves_open
    assert "hip-no-device-windows" not in [x.signature_id for x in explain_text(GGML_LINUX)]


# vosen/ZLUDA#242 (a HIP linked against one ROCm release, its ROCr from another), ROCm/hipfort#134 (Cray ftn without
# -lhiprand), llvm/llvm-project#179930 (flang's OpenMPOpt assertion, file name only), ROCm/amdgpu#102 (RCCL over mlx5)
LD_VERSIONED = "/usr/bin/ld: /opt/rocm/lib//libamdhip64.so: undefined reference to `hsa_amd_memory_copy_engine_status@ROCR_1'"
LD_UNLINKED = "The Cpu Module:(.text+0x1b): undefined reference to `hiprandCreateGenerator'"
OPENMPOPT = ('OpenMPOpt.cpp:4263: bool {anonymous}::AAKernelInfoFunction::changeToSPMDMode(llvm::Attributor&, '
             'llvm::ChangeStatus&): Assertion omp::isOpenMPKernel(*Kernel) && "Expected kernel function!" failed.')
RCCL_GDR = "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'"


def test_a_programs_own_unresolved_rocm_call_is_a_library_left_off_the_link() -> None:
    m = _only(LD_UNLINKED)
    assert (m.signature_id, m.diagnosis) == ("program-calls-unlinked-rocm-library", "rocm-library-not-linked")
    assert "hiprandCreateGenerator" in m.means
    # the versioned form is the other reading, not this one
    assert "program-calls-unlinked-rocm-library" not in [x.signature_id for x in explain_text(LD_VERSIONED)]


# openucx/ucx#4730 (mlx5 refusing a ROCm buffer) and llvm/llvm-project#100209 (flang without --offload-arch)
UCX_ROCM_REG = ("[1580833536.842303] [prj47-rack-72:81868:0]         ucp_mm.c:137  UCX  ERROR failed to register address "
                "0x7ffbd5600400 mem_type bit 0x8 length 1024 on md[0]=mlx5_1: Input/output error (md reg_mem_types 0x1d)")
TGT_KERNEL = "ld.lld: error: undefined symbol: __tgt_target_kernel"


# each line, the signature that reads it, its diagnosis and words its meaning must carry (the line's own values
# filled in: the identifier, the library, the device)
READINGS = [
    (APEX, "hip-build-uses-cuda-library-enum", "extension-source-not-hipified", ("CUBLAS_COMPUTE_64F",)),
    (TORCHAUDIO, "python-extension-needs-torch-cuda-library", "extension-built-without-rocm",
     ("libtorch_cuda.so", "libtorch_hip.so")),
    (HIPRTC, "hiprtc-clang-wrapper-header-not-found", "hiprtc-compilation-failed", ("LLVM_PATH",)),
    (PIP, "pip-rocm-package-no-matching-distribution", "rocm-wheel-index-missing", ("test.pypi.org",)),
    (LD_VERSIONED, "rocm-library-undefined-versioned-symbol", "mixed-rocm-libraries", ("hsa_amd_memory_copy_engine_status",)),
    (OPENMPOPT, "llvm-internal-assertion-failed", "rocm-clang-compiler-bug", ("internal consistency checks",)),
    (RCCL_GDR, "rccl-gpudirect-rdma-disabled", "gpudirect-rdma-peer-memory-missing", ("memory_peers/amdkfd",)),
    (UCX_ROCM_REG, "ucx-rocm-memory-registration-failed", "nic-cannot-register-gpu-memory", ("mlx5_1", "1024 bytes")),
    (TGT_KERNEL, "openmp-offload-entry-undefined-at-link", "openmp-offload-runtime-not-linked", ("--offload-arch",)),
]


@pytest.mark.parametrize("line, signature, diagnosis, words", READINGS, ids=[r[1] for r in READINGS])
def test_each_line_reads_as_the_code_that_prints_it(line: str, signature: str, diagnosis: str,
                                                    words: tuple[str, ...]) -> None:
    m = _only(line)
    assert (m.signature_id, m.diagnosis) == (signature, diagnosis)
    assert all(w in m.means for w in words), m.means
