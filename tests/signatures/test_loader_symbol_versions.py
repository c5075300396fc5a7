"""glibc's "version `X' not found" names two files: the library that lacks the version, then the one that needs it
(elf/dl-version.c). Which library lacks it decides the cause: the system's own libstdc++ (the ROCm packages were
built for a newer OS release) or a private copy an environment put first on the path (Julia's, a conda env's).
Lines verbatim from JuliaGPU/AMDGPU.jl#272, ROCm/legacy-rocm-build#3132 and the catalogue's own example."""

from __future__ import annotations

import pytest

from rocmdoctor.engine.signatures import explain_text

JULIA = ("/home/leios/builds/julia-1.7.1/bin/../lib/julia/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
         "(required by /opt/rocm/lib/librocfft.so)")
CONDA = ("OSError: /home/USER/.conda/envs/bits-env/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found "
         "(required by /home/USER/Documents/temp/bitsandbytes/bitsandbytes/libbitsandbytes_hip_nohipblaslt.so)")
SYSTEM = ("rocminfo: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version GLIBCXX_3.4.29 not found "
          "(required by /opt/rocm-5.4.3/bin/../lib/libhsa-runtime64.so.1)")


@pytest.mark.parametrize("line, private", [(JULIA, "/home/leios/builds/julia-1.7.1/bin/../lib/julia/libstdc++.so.6"),
                                           (CONDA, "/home/USER/.conda/envs/bits-env/bin/../lib/libstdc++.so.6")])
def test_a_private_libstdcxx_is_the_environments(line: str, private: str) -> None:
    diagnoses = [m.diagnosis for m in explain_text(line)]
    assert diagnoses == ["env-libstdcxx-older-than-build-compiler"]
    assert private in explain_text(line)[0].means


def test_the_systems_libstdcxx_means_packages_of_another_os_release() -> None:
    assert [m.diagnosis for m in explain_text(SYSTEM)] == ["rocm-packages-for-other-os-release"]
