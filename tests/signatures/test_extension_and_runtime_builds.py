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
