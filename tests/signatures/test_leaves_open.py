"""`leaves_open` (issue 41, item 6): a symptom line ("no ROCm-capable device is detected", HIP's hipErrorNoDevice)
shows that HIP found no GPU, not why. Alone it names no cause: the runbook fails on it and lists the causes it
leaves open, likeliest first, each with the command that settles it, in a triage and in `explain` alike. The
ticket is a real one the corpus copied verbatim (a non-root user on an MI300X node whose rocBLAS example found no
device; the maintainer's answer: the user lacked the group that opens /dev/kfd)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.catalog.schema_signatures import parse_signatures
from rocmdoctor.catalog.yaml_lines import load_yaml
from rocmdoctor.errors import DefinitionError
from rocmdoctor.testing.corpus import load_case, run_case

CASE = Path(__file__).parents[1] / "incidents" / "gpu-not-visible" / "mi300x-rocblas-gemm-no-device-non-root-user"
LINE = 'An error encountered: "no ROCm-capable device is detected" at main.cpp:146'
LIKELY = ["user-not-in-render-group", "amdgpu-not-loaded", "visibility-variable-masks-gpus", "unsupported-gpu"]
ENV = {**os.environ, "ROCMDOCTOR_INCIDENTS_DIR": os.devnull + "/no-journal"}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", *args], capture_output=True, text=True,
                          timeout=120, env=ENV)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_a_triage_of_the_ticket_fails_on_the_line_and_lists_the_causes_it_leaves_open() -> None:
    proc = _run("triage", "--from", str(CASE / "bundle"), "--runbook", "gpu-not-visible",
                "--log", "/ticket/job.log", "--format", "json")
    rb = next(r for r in json.loads(proc.stdout)["runbooks"] if r["runbook_id"] == "gpu-not-visible")
    assert rb["state"] == "fail" and rb["diagnoses"] == []
    log = next(s for s in rb["steps"] if s["step_id"] == "log")
    assert any(LINE in ev for ev in log["check"]["evidence"])
    opened = [(c["diagnosis_id"], c["settle"]) for c in rb["open_causes"]]
    assert [d for d, _ in opened] == LIKELY
    assert "/dev/kfd" in opened[0][1] and "id" in opened[0][1].split("; ")


def test_explain_lists_the_same_open_causes_and_names_no_cause() -> None:
    out = json.loads(_run("explain", "--format", "json", LINE).stdout)
    assert out["causes"] == []
    assert [c["diagnosis"] for c in out["open_causes"]] == LIKELY
    text = _run("explain", LINE).stdout
    assert "shows a failure, not its cause" in text and "1. gpu-not-visible / user-not-in-render-group" in text


def test_the_corpus_scores_a_failure_with_open_causes_as_missed_not_as_a_wrong_cause() -> None:
    outcome = run_case(load_case(CASE))
    assert outcome.verdict == "missed"
    assert "left open: user-not-in-render-group" in outcome.reason


def test_a_cause_the_node_ruled_out_drops_from_the_list() -> None:
    """The triage's report of that ticket, with the environment step PASSED as a node would (no visibility
    variable set): that cause is no longer open; the others keep their order."""
    from dataclasses import replace

    from rocmdoctor.engine.core import TriageRequest, triage_target
    from rocmdoctor.engine.triage import _with_open_causes
    from rocmdoctor.results import CheckResult
    from rocmdoctor.status import State

    report = triage_target(TriageRequest(target="", bundle=str(CASE / "bundle"), vars={"log": "/ticket/job.log"}))
    rb = next(r for r in report.runbooks if r.runbook_id == "gpu-not-visible")
    assert [c.diagnosis_id for c in rb.open_causes] == LIKELY
    passed = CheckResult("visibility.env_masks", "No visibility variable hides the GPUs", State.PASS,
                         "no visibility variable set")
    steps = tuple(replace(s, check=passed) if s.step_id == "env" else s for s in rb.steps)
    again = _with_open_causes(load_catalog().runbooks["gpu-not-visible"], replace(rb, steps=steps, open_causes=()))
    assert [c.diagnosis_id for c in again.open_causes] == [d for d in LIKELY if d != "visibility-variable-masks-gpus"]


def test_every_symptom_signature_leaves_open_only_causes_its_runbook_settles() -> None:
    catalog = load_catalog()
    symptoms = [s for s in catalog.signatures if s.leaves_open]
    assert {s.id for s in symptoms} >= {"hip-error-no-device", "hip-no-rocm-capable-device"}
    for sig in symptoms:
        settled = {d.id for d in catalog.runbooks[sig.runbook].diagnoses if d.settle}
        assert set(sig.leaves_open) <= settled, sig.id


def _parse(tmp_path: Path, extra: dict) -> None:
    from rocmdoctor.catalog.loader import load_catalog as load

    sig = {"id": "s", "family": "f", "pattern": "no device here", "means": "m", "runbook": "gpu-not-visible",
           "diagnosis": "d", "source": "https://github.com/a/b/issues/1", "example": "no device here", **extra}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"signatures": [sig]}))
    parse_signatures(load_yaml(path.read_text(), str(path)), str(path), load().runbooks)


@pytest.mark.parametrize("extra, error", [
    ({"leaves_open": ["no-such-cause"]}, "does not declare with a settle command"),
    ({"leaves_open": ["gpu-post-failed"]}, "does not declare with a settle command"),   # a cause with no settle
    ({"leaves_open": []}, "must list the runbook's diagnosis ids"),
    ({"leaves_open": ["amdgpu-not-loaded"], "cause_of": ["runtime-missing-gpu"]}, "cannot also leave causes open"),
])
def test_a_leaves_open_the_runbook_cannot_settle_is_refused_with_its_file(tmp_path: Path, extra: dict, error: str) -> None:
    with pytest.raises(DefinitionError, match=error) as exc:
        _parse(tmp_path, extra)
    assert "s.yaml" in str(exc.value)


def test_rocminfo_out_of_resources_leaves_its_causes_open_and_drops_the_module_it_saw_loaded() -> None:
    """rocm-arch#901 (in the corpus verbatim): rocminfo prints "ROCk module is loaded", then hsa_init's
    HSA_STATUS_ERROR_OUT_OF_RESOURCES. ROCr returns that when it cannot open /dev/kfd or build a GPU agent, which
    says that the runtime could not start, not why; the module reason is ruled out by rocminfo's own first line."""
    case = CASE.parent / "arch-rx560-rocm-5.3-rocminfo-out-of-resources"
    proc = _run("triage", "--from", str(case / "bundle"), "--runbook", "gpu-not-visible", "--format", "json")
    rb = next(r for r in json.loads(proc.stdout)["runbooks"] if r["runbook_id"] == "gpu-not-visible")
    assert rb["state"] == "fail" and rb["diagnoses"] == []
    rocminfo = next(s for s in rb["steps"] if s["step_id"] == "rocminfo")
    assert "HSA_STATUS_ERROR_OUT_OF_RESOURCES" in rocminfo["check"]["message"]
    opened = [c["diagnosis_id"] for c in rb["open_causes"]]
    assert opened == ["user-not-in-render-group", "unsupported-gpu", "legacy-gpu-breaks-runtime"]
