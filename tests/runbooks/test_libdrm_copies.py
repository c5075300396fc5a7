"""Two libdrm_amdgpu on one node (issue "the root causes real threads show", kernel-driver-mismatch:
ROCm's own libdrm vs the distribution's). The node alone is not a fault (two copies are how
amdgpu-install leaves every node); a job's "undefined symbol: amdgpu_..." is, and the diagnosis
quotes both the line and which copy the loader offers first."""

from __future__ import annotations

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.simnode.scenarios.real_causes_jobs import CLINFO_LOG, RADEONSI_UNDEFINED
from rocmdoctor.status import State

ROCM_COPY = "ldconfig -p: libdrm_amdgpu.so.1 (libc6,x86-64) => /opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1"


def _kdm(target: str, **vars: str):
    report = triage_target(TriageRequest(target=target, runbooks=("kernel-driver-mismatch",), vars=vars))
    return next(r for r in report.runbooks if r.runbook_id == "kernel-driver-mismatch")


def test_mesa_undefined_symbol_is_a_libdrm_mismatch_with_the_node_side() -> None:
    rb = _kdm("demo:libdrm-shadowed", log=CLINFO_LOG)
    assert rb.state == State.FAIL
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "libdrm-mismatch" and first.confidence == "high"
    assert "pipe_radeonsi.so" in first.cause and "older than the one Mesa was built against" in first.cause
    assert first.evidence[0] == f"{CLINFO_LOG}:1: {RADEONSI_UNDEFINED}"
    assert any(e.startswith("libdrm: two libdrm_amdgpu.so.1: ROCm's /opt/amdgpu/") for e in first.evidence)
    assert ROCM_COPY in first.evidence
    log = next(s for s in rb.steps if s.step_id == "log")
    assert log.check.evidence == (f"{CLINFO_LOG}:1: {RADEONSI_UNDEFINED}",)  # two signatures, one line


def test_two_copies_without_an_error_are_only_stated(tmp_path) -> None:
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.scenarios.real_causes_jobs import libdrm_shadowed
    from rocmdoctor.testing.triage_helpers import diagnoses, steps, triage_node

    plan = compile_plan(load_catalog(), ["kernel-driver-mismatch"], {})  # no job log
    _, report = triage_node(libdrm_shadowed(), tmp_path, plan)
    step = steps(report)["libdrm"]
    assert step.state == State.PASS and "listed first" in step.check.message
    assert ROCM_COPY in step.check.evidence
    assert report.runbooks[0].state == State.PASS and not diagnoses(report)


def test_node_without_ldconfig_skips_the_step(tmp_path) -> None:
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy
    from rocmdoctor.testing.triage_helpers import steps, triage_node

    plan = compile_plan(load_catalog(), ["kernel-driver-mismatch"], {})
    _, report = triage_node(healthy().remove_tool("ldconfig"), tmp_path, plan)
    step = steps(report)["libdrm"]
    assert step.state == State.SKIPPED and "no ldconfig" in step.skipped_because
    assert report.runbooks[0].state == State.PASS
