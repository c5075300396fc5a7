"""hw.pcie_link on a ticket's pasted `lspci -vv` (no sysfs in the bundle): a GPU link at full width
and a lower speed is not called trained down (amdgpu idles the link: ROCm/legacy-rocm-build#93,
and an RX 580 whose system "works fine", dri-devel 2020-11-02); a narrower link is."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.status import State
from rocmdoctor.testing.corpus import ROOT
from rocmdoctor.testing.triage_helpers import diagnoses, steps

RB = "gpu-hardware-fault"
FIJI = ROOT / RB / "fiji-gen1-at-idle-link-power-management"
RX580 = ROOT / RB / "rx580-2.5gts-downgraded-idle-works-fine"


def _pcie(bundle: Path):
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=(RB,)))
    return report, steps(report)["pcie"]


def test_full_width_at_idle_speed_is_not_judged_and_quotes_the_lines() -> None:
    for case, bdf, sta in ((FIJI, "0000:02:00.0", "## LnkSta: Speed 2.5GT/s, Width x16"),
                           (RX580, "0000:08:00.0", "LnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)")):
        report, s = _pcie(case / "bundle")
        assert s.state == State.PASS, s.check.message
        assert s.check.message.startswith(f"{bdf} at x16 2.5 GT/s of 8.0 GT/s in the pasted lspci: full width at a lower "
                                          "speed is how amdgpu idles a GPU's link")
        assert s.check.message.endswith("no PCIe error counters in the evidence")
        assert any(line.startswith(f"lspci -vv {bdf}: LnkCap:") and sta in line for line in s.check.evidence)
        assert "pcie-link-degraded" not in diagnoses(report)


def test_a_narrower_link_in_a_paste_is_trained_down(tmp_path: Path) -> None:
    """A constructed combination to exercise the width rule: the RX 580 block of the dri-devel paste
    with its LnkSta line swapped for a real `Speed 8GT/s (downgraded), Width x8 (downgraded)` one (MI50s in x8 slots,
    mixa3607's gfx906 wiki page "Perf vs PCIe speed"); no public thread shows an AMD GPU's own
    width trained down with its lspci."""
    text = (RX580 / "bundle/commands/lspci -n -D/stdout").read_text()
    text = text.replace("\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)\n\t\t\tTrErr- Train- SlotClk+ DLActive- ",
                        "                LnkSta: Speed 8GT/s (downgraded), Width x8 (downgraded)\n\t\t\tTrErr- Train- SlotClk+ DLActive- ")
    out = tmp_path / "bundle" / "commands" / "lspci -n -D" / "stdout"
    out.parent.mkdir(parents=True)
    out.write_text(text)
    report, s = _pcie(tmp_path / "bundle")
    assert s.state == State.WARN
    assert s.check.message.startswith("PCIe link trained down on 0000:08:00.0: x8 at 8.0 GT/s, the card can do x16 at 8.0 GT/s")
    assert s.check.evidence == ("lspci -vv 0000:08:00.0: LnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM L1, Exit Latency L1 "
                                "<1us; LnkSta: Speed 8GT/s (downgraded), Width x8 (downgraded)",)
    assert "pcie-link-degraded" in diagnoses(report)
