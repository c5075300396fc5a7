"""Generic (fallback) line readings among themselves: the surer goes first, whatever the order of their lines.

A boot log of a gfx11 card under a custom coreboot port (ellyq/coreboot#4, in the corpus) prints corrected PCIe
link errors before amdgpu's MES KIQ ring test times out: both readings are generic, and the corrected errors
(low confidence: the link corrected them) must not be named ahead of the failed ring test."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.engine.signatures import explain_text

CASE = Path(__file__).resolve().parents[1] / "incidents" / "gpu-hardware-fault" / "aer-ellyq-coreboot-gfx11-mes-kiq-init"


def test_a_failed_ring_test_goes_before_corrected_pcie_errors_logged_earlier() -> None:
    report = triage_target(TriageRequest(target="", bundle=str(CASE / "bundle"), runbooks=("gpu-hardware-fault",)))
    made = report.runbooks[0].diagnoses
    assert [d.diagnosis_id for d in made][:2] == ["gpu-engine-unresponsive", "pcie-errors"]
    assert any("ring mes_kiq_3.1.0 test failed (-110)" in e for e in made[0].evidence)
    assert any("[ 6] BadTLP" in e or "severity=Corrected" in e for e in made[1].evidence)
    assert made[1].confidence == "low"


def test_the_corrected_error_readings_are_low_confidence_fallbacks() -> None:
    log = (CASE / "bundle" / "commands" / "dmesg" / "stdout").read_text()
    pcie = [m for m in explain_text(log) if m.diagnosis == "pcie-errors"]
    assert {m.signature_id for m in pcie} == {"pcie-aer-correctable", "pcie-aer-link-layer-errors"}
    assert all(m.fallback and m.confidence == "low" for m in pcie)
