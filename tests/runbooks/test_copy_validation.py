"""hw.copy_validation reads `rocm_bandwidth_test -v` output given with --log: FAIL on a host path
names the GPU and quotes the failing rows; an all-PASS report passes; a log without such a report
(a job's own log) does not apply, a report whose matrix cannot be read is UNKNOWN with the parser's
reason; without --log the step is skipped."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.simnode.formats.rocm_bandwidth import validation_report
from rocmdoctor.simnode.scenarios.gpu_oom import healthy
from rocmdoctor.status import State
from rocmdoctor.testing.corpus import ROOT
from rocmdoctor.testing.triage_helpers import diagnoses, steps

RB = "gpu-hardware-fault"
CASE = ROOT / RB / "vega-fe-pcie-riser-copy-validation-fail"


def _triage_bundle(bundle: Path, log: str | None):
    return triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=(RB,),
                                       vars={"log": log} if log else {}))


def test_real_riser_case_fails_with_the_rows_as_evidence() -> None:
    report = _triage_bundle(CASE / "bundle", "/ticket/rocm_bandwidth_test.txt")
    s = steps(report)["copies"]
    assert s.state == State.FAIL
    assert s.check.message == ("2 of 3 copy path(s) FAIL data validation (0->1, 1->0): data sent between the host "
                               "and device 1 (Vega 10 XTX [Radeon Vega Frontier Edition]) comes back different")
    assert s.check.evidence == ("/ticket/rocm_bandwidth_test.txt: D/D       0           1",
                                "/ticket/rocm_bandwidth_test.txt: 0         N/A         FAIL",
                                "/ticket/rocm_bandwidth_test.txt: 1         FAIL        PASS")
    d = diagnoses(report)["copy-validation-failed"]
    assert d.confidence == "high" and d.evidence[:3] == s.check.evidence
    drain = [p for p in d.remediations if p.remediation_id == "drain-node"][0]
    assert "Reason='rocmdoctor: 2 of 3 copy path(s) FAIL data validation" in drain.command


def _bundle_with(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "bundle" / "files" / "ticket" / "rbt.txt"
    f.parent.mkdir(parents=True)
    f.write_text(text)
    return tmp_path / "bundle"


def test_all_pass_report_passes(tmp_path: Path) -> None:
    bundle = _bundle_with(tmp_path, validation_report(healthy().gpus, set()))
    s = steps(_triage_bundle(bundle, "/ticket/rbt.txt"))["copies"]
    assert s.state == State.PASS
    assert s.check.message == "every copy path rocm_bandwidth_test -v ran passed data validation (96 path(s))"


def test_other_log_is_not_applicable_not_unknown(tmp_path: Path) -> None:
    """--log is usually the job's own log: without a validation matrix the step does not apply, so a
    healthy node with a job log stays OK (it was UNKNOWN, exit 3, on every such triage)."""
    bundle = _bundle_with(tmp_path, "[    5.1] amdgpu 0000:05:00.0: amdgpu: GPU reset begin!\n")
    s = steps(_triage_bundle(bundle, "/ticket/rbt.txt"))["copies"]
    assert s.state == State.SKIPPED
    assert "/ticket/rbt.txt holds no `rocm_bandwidth_test -v` output (no Data Path Validation matrix)" in s.skipped_because


def test_a_malformed_matrix_is_unknown_with_the_reason(tmp_path: Path) -> None:
    bundle = _bundle_with(tmp_path, "Data Path Validation\n\nD/D  0  1\n\n0  N/A\n")
    s = steps(_triage_bundle(bundle, "/ticket/rbt.txt"))["copies"]
    assert s.state == State.UNKNOWN and "has 1 results for 2 devices" in s.check.message


def test_healthy_node_with_its_job_log_exits_ok(tmp_path: Path) -> None:
    """The Slurm epilog use: `rocmdoctor triage --log JOB.log` on a healthy node is OK (exit 0)."""
    from rocmdoctor.testing.cli import captured_demo, run_cli

    bundle = captured_demo("healthy-mi300x", tmp_path)
    (bundle / "files" / "scratch").mkdir(parents=True)
    (bundle / "files" / "scratch" / "job.log").write_text("epoch 1 loss 0.31\nepoch 2 loss 0.27\n")
    out = run_cli("triage", "--from", str(bundle), "--log", "/scratch/job.log")
    assert out.returncode == 0, out.stdout[-2000:]


def test_without_a_log_the_step_is_skipped() -> None:
    s = steps(triage_target(TriageRequest(target="demo:healthy-mi300x", runbooks=(RB,))))["copies"]
    assert s.state == State.SKIPPED and s.check is None and "--var log" in s.skipped_because


def test_peer_and_inside_failures_are_named_without_blaming_the_host_link(tmp_path: Path) -> None:
    gpus = healthy().gpus
    bundle = _bundle_with(tmp_path, validation_report(gpus, {(2, 3), (3, 3)}))
    report = _triage_bundle(bundle, "/ticket/rbt.txt")
    s = steps(report)["copies"]
    a, b = (f"AMD Instinct MI300X, {g.bdf[5:7]}:0.0" for g in gpus[:2])
    assert s.check.message == (f"2 of 96 copy path(s) FAIL data validation (2->3, 3->3); between device 2 ({a}) "
                               f"and device 3 ({b}); inside device 3 ({b})")
    cause = diagnoses(report)["copy-validation-failed"].cause
    assert "No failed path involves the host" in cause and "riser" not in cause


def test_only_gpu_to_gpu_failures_are_peer_to_peer_not_a_link() -> None:
    """ROCm/legacy-rocm-build#1495: host paths PASS, the two GPUs FAIL between them (the in-kernel amdgpu
    without peer-to-peer support): not the riser reading, and the workaround keeps jobs off P2P."""
    report = _triage_bundle(ROOT / RB / "radeon-vii-rx6900xt-p2p-validation-fail-upstream-amdgpu" / "bundle",
                            "/ticket/rocm_bandwidth_test.txt")
    assert steps(report)["copies"].check.outputs["host_passed"] == 4
    d = diagnoses(report)
    assert "peer-to-peer-unsupported" in d and "copy-validation-failed" not in d
    assert "peer-to-peer DMA does not work on this node" in d["peer-to-peer-unsupported"].cause
    assert any("NCCL_P2P_DISABLE=1" in f for f in d["peer-to-peer-unsupported"].follow_up)
    # the riser case keeps its reading: a host path failed
    riser = diagnoses(_triage_bundle(CASE / "bundle", "/ticket/rocm_bandwidth_test.txt"))
    assert "copy-validation-failed" in riser and "peer-to-peer-unsupported" not in riser
