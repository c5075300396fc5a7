"""HSA_OVERRIDE_GFX_VERSION as a ticket states it, held to the GPU the ticket names (check runtime.gfx_override
without the node's environment or KFD topology). Texts are corpus cases' verbatim evidence; each case.md names its
thread."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.hsa_runtime import parse_hsa_runtime_events
from rocmdoctor.results import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

LIFEOS = (Path(__file__).resolve().parent / "incidents" / "gpu-hardware-fault"
          / "vmfault-lifeos55-gfx1151-stale-override-gpu-hang" / "bundle" / "files" / "ticket")
VARS = {"log": "/ticket/vault_reindex.log", "report": "/ticket/report.md"}


def _files() -> dict[str, str]:
    return {f"files/ticket/{p.name}": p.read_text() for p in LIFEOS.iterdir()}


def test_a_retyped_hang_line_is_still_rocrs() -> None:
    """nbramia/LifeOS#55 quotes ROCr's line with the colon moved: `reason: GPU Hang`."""
    got = parse_hsa_runtime_events((LIFEOS / "vault_reindex.log").read_text())
    assert [(h["node"], h["reason"]) for h in got["hangs"]] == [(1, "GPU Hang")]


def test_a_left_over_override_to_another_family_is_named_beside_the_hang(tmp_path: Path) -> None:
    """LifeOS#55: `HSA_OVERRIDE_GFX_VERSION=11.0.0` left in `.env` on a gfx1151 (Radeon 8060S) under ROCm 7.2,
    then `HW Exception by GPU node-1 reason: GPU Hang`; the owner removed the override (PR #56)."""
    rb, step = triage_bundle_step(tmp_path, _files(), "gpu-hardware-fault", "override", vars=VARS)
    assert step.check is not None and step.check.state == State.WARN
    assert "HSA_OVERRIDE_GFX_VERSION=11.0.0 forces gfx1100 on gfx1151" in step.check.message
    # the evidence quotes where the ticket sets the value and where it names the GPU
    assert any(e.startswith("/ticket/report.md:") and "HSA_OVERRIDE_GFX_VERSION=11.0.0" in e
               for e in step.check.evidence)
    assert any("Radeon 8060S" in e and "gfx1151" in e for e in step.check.evidence)
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "gfx-override-mismatch"
    assert "the job's GPU hung" in first.cause


def test_the_ticket_is_not_read_over_the_nodes_own_environment(tmp_path: Path) -> None:
    """A bundle that holds the node's own environment is judged by it; the ticket's text does not replace it."""
    files = {**_files(), "env/HSA_OVERRIDE_GFX_VERSION": "11.5.1"}
    _, step = triage_bundle_step(tmp_path, files, "gpu-hardware-fault", "override", vars=VARS)
    assert step.check is not None and step.check.state == State.UNKNOWN
    assert step.check.message.startswith("HSA_OVERRIDE_GFX_VERSION=11.5.1 (gfx1151), and no KFD GPU node")


def test_an_override_within_the_gpus_family_passes(tmp_path: Path) -> None:
    """The known workaround: 11.0.0 on a gfx1100-family GPU (an RX 7900 XTX is gfx1100 itself)."""
    files = {"files/ticket/report.md": "### GPU\n\nAMD Radeon RX 7900 XTX\n\nexport HSA_OVERRIDE_GFX_VERSION=11.0.0\n"}
    _, step = triage_bundle_step(tmp_path, files, "gpu-hardware-fault", "override", vars={"report": "/ticket/report.md"})
    assert step.check is not None and step.check.state == State.PASS
