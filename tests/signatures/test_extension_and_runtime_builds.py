"""Build and load failures of GPU packages read from the code that prints them (issue 41, batch 2026-11-28o's
fixes): clang's undeclared CUDA library name in a hipified source, a package linked against PyTorch's CUDA-only
libtorch_cuda.so, hiprtc without clang's runtime wrapper header (AMD's ROCm 4.3.1 known issue), pip finding no
hip-python (published on TestPyPI), and OpenCL's C++ bindings throwing on clGetPlatformIDs, which means something
else when rocminfo failed beside it. Lines verbatim from the threads each signature names."""

from __future__ import annotations

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


def test_an_undeclared_cuda_library_name_is_a_source_hipify_did_not_convert() -> None:
    m = _only(APEX)
    assert (m.signature_id, m.diagnosis) == ("hip-build-uses-cuda-library-enum", "extension-source-not-hipified")
    assert "CUBLAS_COMPUTE_64F" in m.means


def test_a_missing_libtorch_cuda_is_a_package_built_against_a_cuda_pytorch() -> None:
    m = _only(TORCHAUDIO)
    assert m.diagnosis == "extension-built-without-rocm"
    assert "libtorch_cuda.so" in m.means and "libtorch_hip.so" in m.means


def test_hiprtc_without_clangs_wrapper_header_names_llvm_path() -> None:
    m = _only(HIPRTC)
    assert m.diagnosis == "hiprtc-compilation-failed" and "LLVM_PATH" in m.means


def test_pip_without_hip_python_points_at_testpypi() -> None:
    m = _only(PIP)
    assert m.diagnosis == "rocm-wheel-index-missing" and "test.pypi.org" in m.means


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


def test_a_rocm_library_missing_a_versioned_rocr_symbol_at_link_time_is_two_releases() -> None:
    m = _only(LD_VERSIONED)
    assert m.diagnosis == "mixed-rocm-libraries" and "hsa_amd_memory_copy_engine_status" in m.means


def test_a_programs_own_unresolved_rocm_call_is_a_library_left_off_the_link() -> None:
    m = _only(LD_UNLINKED)
    assert (m.signature_id, m.diagnosis) == ("program-calls-unlinked-rocm-library", "rocm-library-not-linked")
    assert "hiprandCreateGenerator" in m.means
    # the versioned form is the other reading, not this one
    assert "program-calls-unlinked-rocm-library" not in [x.signature_id for x in explain_text(LD_VERSIONED)]


def test_an_llvm_assertion_pasted_with_the_file_name_only_is_a_compiler_bug() -> None:
    m = _only(OPENMPOPT)
    assert (m.signature_id, m.diagnosis) == ("llvm-internal-assertion-failed", "rocm-clang-compiler-bug")


def test_rccl_without_the_gpu_nic_peer_memory_link_is_slow_not_broken() -> None:
    m = _only(RCCL_GDR)
    assert (m.runbook, m.diagnosis, m.severity) == ("gpu-slow", "gpudirect-rdma-peer-memory-missing", "warning")
    assert "memory_peers/amdkfd" in m.means


# openucx/ucx#4730 (mlx5 refusing a ROCm buffer) and llvm/llvm-project#100209 (flang without --offload-arch)
UCX_ROCM_REG = ("[1580833536.842303] [prj47-rack-72:81868:0]         ucp_mm.c:137  UCX  ERROR failed to register address "
                "0x7ffbd5600400 mem_type bit 0x8 length 1024 on md[0]=mlx5_1: Input/output error (md reg_mem_types 0x1d)")
TGT_KERNEL = "ld.lld: error: undefined symbol: __tgt_target_kernel"


def test_ucx_refusing_rocm_memory_on_a_nic_is_the_missing_gpu_nic_link() -> None:
    m = _only(UCX_ROCM_REG)
    assert m.diagnosis == "nic-cannot-register-gpu-memory"
    assert "mlx5_1" in m.means and "1024 bytes" in m.means


def test_an_unlinked_offload_runtime_entry_is_a_link_line_without_offloading() -> None:
    m = _only(TGT_KERNEL)
    assert m.diagnosis == "openmp-offload-runtime-not-linked" and "--offload-arch" in m.means
