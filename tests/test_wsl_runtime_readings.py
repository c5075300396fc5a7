"""rocminfo under WSL (issue 41: read what the runtime's own output shows). A WSL runtime that started (its
system attributes printed) and lists no GPU agent is ROCm's WSL build leaving the Windows GPU out, not a
non-WSL build (which cannot start without /dev/kfd); ROCm 6.3.4's WSL thunk assertion in QueryAdapterInfo
is its own reading. Outputs verbatim from the corpus (threads in each case.md)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.rocminfo import parse_rocminfo
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

CORPUS = Path(__file__).parent / "incidents" / "gpu-not-visible"


def _rocminfo(case: str) -> str:
    return (CORPUS / case / "bundle" / "commands" / "rocminfo" / "stdout").read_text()


def test_the_thunk_assertion_is_an_error_line_of_a_wsl_build() -> None:
    out = parse_rocminfo(_rocminfo("wsl-7900xt-with-gtx1080ti-thunk-proxy-assert"))
    assert out["wsl"] is True
    assert out["errors"] == [
        "rocminfo: ./sources/wsl/libhsakmt/src/thunk_proxy/thunk_proxy.cpp:111: void thunk_proxy::QueryAdapterInfo("
        "D3DKMT_HANDLE, ATIADAPTERINFO*): Assertion `ret == STATUS_SUCCESS' failed."]


def test_the_thunk_assertion_names_the_non_amd_gpu_pattern(tmp_path: Path) -> None:
    rb, step = triage_bundle_step(tmp_path, {"commands/rocminfo/stdout": _rocminfo(
        "wsl-7900xt-with-gtx1080ti-thunk-proxy-assert")}, "gpu-not-visible", "rocminfo")
    assert step.state == State.FAIL and "QueryAdapterInfo" in step.check.message
    assert rb.diagnoses[0].diagnosis_id == "wsl-runtime-breaks-with-non-amd-gpu"


def test_a_started_wsl_runtime_with_only_the_cpu_leaves_the_gpu_out(tmp_path: Path) -> None:
    rb, step = triage_bundle_step(tmp_path, {"commands/rocminfo/stdout": _rocminfo(
        "wsl-rx6800xt-rocm634-cpu-agent-only")}, "gpu-not-visible", "rocminfo")
    assert step.state == State.FAIL
    assert "the HSA runtime started (runtime version 1.1) and lists 1 agent(s), none a GPU" in step.check.message
    assert rb.diagnoses[0].diagnosis_id == "wsl-gpu-not-supported"
    assert "Windows exposes no GPU adapter" in rb.diagnoses[0].cause
