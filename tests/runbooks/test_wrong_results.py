"""wrong-results on its demo nodes (issue 42, the passive part): two copies of one ROCm library or
libraries of two installs in a GPU process, a forced GFX target, memory errors; a busy node whose
jobs each run one ROCm stays OK; the mapped libraries are read in the same single probe."""

from __future__ import annotations

import pytest

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.simnode.scenarios import SCENARIOS
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.testing.triage_helpers import diagnoses, steps

RB = "wrong-results"
CAUSES = sorted(n for n, s in SCENARIOS.items() if RB in s.runbooks and s.expect.get("diagnosis"))
EVIDENCE = {
    "wrong-two-hip-runtimes": "/proc/51000/maps: /opt/rocm-6.2.4/lib/libamdhip64.so.6.2.60204",
    "wrong-two-rocm-installs": "/proc/51000/maps: /opt/rocm-6.2.4/lib/librocblas.so.4.2.60204",
    "wrong-gfx-override": "rocminfo: Marketing Name: AMD Instinct MI300X / Name: gfx1030 (8 GPUs); the product is gfx942",
    "wrong-ecc-uncorrectable": "/sys/bus/pci/devices/0000:65:00.0/ras/umc_err_count: ue: 2 ce: 5",
    "wrong-xnack-not-given": "/proc/51000/environ: HSA_XNACK=1",
    "wrong-wheel-for-old-rocm": "PID 51000: site-packages/torch-2.3.1+rocm5.7.dist-info",
    "wrong-known-issue-release": "cat /opt/rocm/.info/version: 6.2.0-66",
}


def triage(name: str, **kw):  # type: ignore[no-untyped-def]
    return triage_target(TriageRequest(target=f"demo:{name}", runbooks=(RB,), **kw))


def test_every_passive_cause_has_a_demo() -> None:
    assert {SCENARIOS[n].expect["diagnosis"] for n in CAUSES} == {"mixed-rocm-libraries", "gfx-override-mismatch",
                                                                  "memory-errors", "xnack-mode-mismatch",
                                                                  "framework-built-for-other-rocm", "known-bad-combination"}
    assert set(EVIDENCE) == set(CAUSES)


@pytest.mark.parametrize("name", CAUSES)
def test_each_cause_is_named_with_its_evidence(name: str) -> None:
    expect = SCENARIOS[name].expect
    report = triage(name)
    step = steps(report)[expect["step"]]
    assert step.state in (State.WARN, State.FAIL)
    assert any(EVIDENCE[name] in e for e in step.check.evidence), step.check.evidence
    assert list(diagnoses(report))[0] == expect["diagnosis"]


def test_two_copies_of_one_library_is_critical_and_names_both_paths() -> None:
    report = triage("wrong-two-hip-runtimes")
    assert report.exit_status == ExitStatus.CRITICAL and report.round_trips == 1
    msg = steps(report)["libs"].check.message
    assert msg == ("PID 51000 (python3) maps libamdhip64 twice: /home/alice/venv/lib/python3.10/site-packages/torch/lib/"
                   "libamdhip64.so, /opt/rocm-6.2.4/lib/libamdhip64.so.6.2.60204")


def test_one_rocm_per_job_is_ok() -> None:
    report = triage("wrong-one-rocm")
    assert report.exit_status == ExitStatus.OK and diagnoses(report) == {}
    assert steps(report)["libs"].check.message == ("8 GPU process(es), each with its ROCm libraries from one install "
                                                   "(/home/alice/venv/lib/python3.10/site-packages/torch)")


def test_xnack_is_judged_by_what_kfd_can_give_each_gpu(tmp_path) -> None:
    """kfd_process_xnack_mode: GFX10+ never; gfx942 selects XNACK per process, whatever noretry says."""
    report = triage("wrong-xnack-not-given")
    xnack = steps(report)["xnack"].check
    assert xnack.message.startswith("1 GPU process(es) ask for XNACK (HSA_XNACK=1: PID 51000) but KFD runs them with it off: "
                                    "1 GPU(s) are GFX10 or later (gfx_target_version 110501)")
    assert "kfd topology: gfx_target_version 110501" in xnack.evidence
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.scenarios.wrong_results import xnack_on_mi300x
    from rocmdoctor.testing.triage_helpers import triage_node

    node = xnack_on_mi300x()
    node.amdgpu_parameters["noretry"] = "1"
    _, ok = triage_node(node, tmp_path, compile_plan(load_catalog(), [RB], {}))
    assert steps(ok)["xnack"].check.message == "1 GPU process(es) ask for XNACK and every GPU can give it"
    assert steps(ok)["xnack"].state == State.PASS


def test_a_clear_node_points_at_the_active_check() -> None:
    """Nothing on the node explains wrong numbers: the runbook says what settles it next (validate)."""
    report = triage("wrong-one-rocm")
    (rb,) = report.runbooks
    assert rb.state == State.PASS and rb.when_clear[0].startswith(
        "Confirm the GPUs themselves on a drained node: `rocmdoctor validate demo:wrong-one-rocm --level 2`")
    assert rb.to_dict()["when_clear"] == list(rb.when_clear)
    assert triage("wrong-xnack-not-given").runbooks[0].when_clear == ()      # only when nothing was found


def test_a_wheel_s_rocm_is_read_from_its_dist_info() -> None:
    from rocmdoctor.parsers.gpu_jobs import _wheel

    assert _wheel("torch-2.5.1+rocm6.2.dist-info") == {"dir": "torch-2.5.1+rocm6.2.dist-info", "name": "torch",
                                                        "version": "2.5.1+rocm6.2", "rocm": "6.2"}
    assert _wheel("torch-2.6.0.dev20241112+rocm6.2.4.dist-info")["rocm"] == "6.2"
    assert _wheel("torch-2.5.1+cu124.dist-info")["rocm"] is None
    msg = steps(triage("wrong-wheel-for-old-rocm"))["wheel"].check.message
    assert msg.startswith("8 GPU process(es) (PID 51000, 51001, 51002, 51003, ...) run PyTorch 2.3.1+rocm5.7, built for ROCm 5.7,")
    assert msg.endswith("on the amdgpu driver 6.8.5 (the ROCm 6.2 kernel driver), which AMD tested only with ROCm 6.0, 6.1, 6.2, 6.3, 6.4, 7.0")
