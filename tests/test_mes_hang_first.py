"""A GPU reset after the MES scheduler firmware stopped answering (issue 41: the line before changes the
meaning): when the first GPU fault this boot is "MES failed to respond" and no success follows the reset,
the MES hang is named first and the unfinished reset second; so too when a ring timeout began the reset and
the MES then did not answer (a reset needs the MES to remove the queues). A reset that succeeded stays a
recovered hang. Kernel logs verbatim from the corpus (their threads
are in each case.md)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

CORPUS = Path(__file__).parent / "incidents" / "gpu-hardware-fault"


def _dmesg(case: str) -> str:
    return (CORPUS / case / "bundle" / "commands" / "dmesg" / "stdout").read_text()


def test_a_reset_the_mes_hang_began_names_the_mes_first(tmp_path: Path) -> None:
    log = _dmesg("rx7900xtx-mes-unresponsive-hang-rocm572")
    rb, step = triage_bundle_step(tmp_path, {"commands/dmesg/stdout": log}, "gpu-hardware-fault", "resets")
    assert step.state == State.FAIL
    assert step.check.outputs["mes_first"]["text"].endswith("MES failed to response msg=3")
    ids = [d.diagnosis_id for d in rb.diagnoses]
    assert ids[:2] == ["mes-firmware-hang", "gpu-reset-failed"]
    mes = rb.diagnoses[0]
    assert mes.confidence == "medium" and "MES failed to response msg=3" in mes.cause
    assert any("GPU reset begin!" in e for e in mes.evidence)


def test_a_mes_that_does_not_answer_inside_a_reset_a_ring_timeout_began_is_named_too(tmp_path: Path) -> None:
    log = _dmesg("rx7900xt-sdma0-timeout-mes-rocm57")
    rb, step = triage_bundle_step(tmp_path, {"commands/dmesg/stdout": log}, "gpu-hardware-fault", "resets")
    assert step.state == State.FAIL and step.check.outputs["mes_first"] is None
    assert step.check.outputs["mes_line"]["text"].endswith("MES failed to response msg=3")
    mes = rb.diagnoses[0]
    assert mes.diagnosis_id == "mes-firmware-hang" and "A job hung first" in mes.cause
    assert [d.diagnosis_id for d in rb.diagnoses][1] == "gpu-reset-failed"


def test_a_recovered_reset_stays_a_recovered_hang(tmp_path: Path) -> None:
    log = (CORPUS / "gfx1151-mes-hang-mode2-recovered" / "bundle" / "commands" / "journalctl -k -b --no-pager"
           / "stdout").read_text()
    rb, step = triage_bundle_step(tmp_path, {"commands/dmesg/stdout": log}, "gpu-hardware-fault", "resets")
    assert step.state == State.WARN
    assert rb.diagnoses[0].diagnosis_id == "gpu-hang-recovered"


def test_an_smu_that_stops_answering_first_is_named_before_the_reset(tmp_path: Path) -> None:
    """The SMU's "I'm not done with your previous command" as the boot's first GPU fault (ublue-os/bazzite#5313):
    the power-management firmware hang leads, the unrecovered hang follows."""
    log = _dmesg("bazzite-rdna3-smu-busy-dfcstate-mes-hang")
    rb, step = triage_bundle_step(tmp_path, {"commands/dmesg/stdout": log}, "gpu-hardware-fault", "resets")
    assert step.state == State.FAIL and "I'm not done with your previous command" in step.check.outputs["smu_first"]["text"]
    assert [d.diagnosis_id for d in rb.diagnoses][:2] == ["smu-firmware-hang", "gpu-reset-failed"]
    assert "power-management firmware" in rb.diagnoses[0].cause
    assert any("SMU: I'm not done" in e for e in rb.diagnoses[0].evidence)


def test_an_smu_busy_line_inside_a_reset_a_ring_timeout_began_does_not_lead(tmp_path: Path) -> None:
    log = _dmesg("rx7900xt-sdma0-timeout-mes-rocm57")
    rb, step = triage_bundle_step(tmp_path, {"commands/dmesg/stdout": log}, "gpu-hardware-fault", "resets")
    assert step.check.outputs["smu_first"] is None
    assert rb.diagnoses[0].diagnosis_id != "smu-firmware-hang"


def test_an_smu_that_does_not_answer_inside_a_recovered_ring_reset_leads_the_recovered_hang(tmp_path: Path) -> None:
    """Some kernel releases word the SMU's silence "SMU: No response msg_reg: 13 resp_reg: 0": a VCN ring reset that needed
    it failed and a full reset brought the GPU back (OpenGamingCollective/kernel-packages#42)."""
    log = _dmesg("rx9070-vcn-reset-smu-no-response")
    rb, step = triage_bundle_step(tmp_path, {"commands/dmesg/stdout": log}, "gpu-hardware-fault", "resets")
    assert step.state == State.WARN
    assert [d.diagnosis_id for d in rb.diagnoses][:2] == ["smu-firmware-hang", "gpu-hang-recovered"]
    assert "SMU: No response msg_reg: 13 resp_reg: 0" in rb.diagnoses[0].cause
