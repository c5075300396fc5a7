"""gpu-not-visible reads a llama.cpp job log (--log): a job that failed on the integrated GPU next
to a discrete one is named, with the device list and the failing line as evidence."""

from __future__ import annotations

import pytest

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.simnode.formats import ggml
from rocmdoctor.simnode.scenarios import real_causes_jobs as jobs
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import diagnoses, evidence, steps, triage_node

LOG = jobs.JOB_LOG


@pytest.fixture(scope="module")
def plan():
    return compile_plan(load_catalog(), ["gpu-not-visible"], {"log": LOG})


def _with_log(node, lines: list[str]):
    """The igpu-used-by-job node with its job log replaced by `lines`."""
    node.file(LOG, "\n".join(lines) + "\n")
    return node


def test_job_that_failed_on_the_igpu_is_the_first_diagnosis() -> None:
    report = triage_target(TriageRequest(target="demo:igpu-used-by-job", runbooks=("gpu-not-visible",),
                                         vars={"log": LOG}))
    (rb,) = report.runbooks
    assert rb.state == State.FAIL
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "igpu-used-by-job"
    assert first.cause.startswith('the job failed on HIP device 1, the integrated gfx1036 (AMD Radeon Graphics): '
                                  '"invalid device function"; the discrete gfx1100 is device 0')
    joined = "\n".join(first.evidence)
    assert f"{LOG}:3: Device 1: AMD Radeon Graphics, gfx1036 (0x1036)" in joined
    assert f"{LOG}:8: current device: 1, in function ggml_cuda_compute_forward" in joined
    assert any("`export ROCR_VISIBLE_DEVICES=0`" in f for f in first.follow_up)
    # device 0 is the discrete GPU: the KFD-order check alone would have passed this node
    assert {s.step_id: s for s in rb.steps}["igpu"].state == State.PASS


def test_igpu_listed_without_a_failure_is_a_warning(tmp_path, plan) -> None:
    node = jobs.igpu_used_by_job()
    _, report = triage_node(_with_log(node, ggml.device_list(node.gpus)), tmp_path, plan)
    step = steps(report)["job_gpus"]
    assert step.state == State.WARN
    assert step.check.message.startswith("the job's GPUs include the integrated gfx1036 (AMD Radeon Graphics, device 1)"
                                         " next to the discrete gfx1100 (device 0)")
    assert "igpu-used-by-job" in diagnoses(report)


def test_failure_on_the_discrete_gpu_is_not_blamed_on_the_igpu(tmp_path, plan) -> None:
    node = jobs.igpu_used_by_job()
    _, report = triage_node(_with_log(node, [*ggml.device_list(node.gpus), *ggml.kernel_failure(0)]), tmp_path, plan)
    step = steps(report)["job_gpus"]
    assert step.state == State.WARN and step.check.message.endswith("the job's HIP error names device 0")


def test_discrete_only_job_passes_and_other_logs_are_not_judged(tmp_path, plan) -> None:
    node = jobs.igpu_used_by_job()
    _, report = triage_node(_with_log(node, ggml.device_list(node.gpus[:1]) + ggml.kernel_failure(0)), tmp_path / "a", plan)
    step = steps(report)["job_gpus"]
    assert step.state == State.PASS and "none is a known integrated target" in step.check.message
    assert f"{LOG}:2: Device 0: AMD Radeon RX 7900 XT, gfx1100 (0x1100)" in evidence(step)
    assert "igpu-used-by-job" not in diagnoses(report)
    _, report = triage_node(_with_log(jobs.igpu_used_by_job(), ["Traceback (most recent call last):", "RuntimeError: boom"]),
                            tmp_path / "b", plan)
    assert steps(report)["job_gpus"].state == State.SKIPPED


def test_without_a_job_log_the_step_does_not_run(tmp_path) -> None:
    no_log = compile_plan(load_catalog(), ["gpu-not-visible"], {})
    _, report = triage_node(jobs.igpu_used_by_job(), tmp_path, no_log)
    step = steps(report)["job_gpus"]
    assert step.check is None and "log" in step.skipped_because
    assert "igpu-used-by-job" not in diagnoses(report)
