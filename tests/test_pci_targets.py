"""A GPU's target from its PCI device id (data amd_pci_targets, issue 41 items 4 and 6): where amdgpu did
not load, or a ticket pastes only lspci, nothing above the driver names the target, yet the supported-GPU
lists and the iGPU reading need it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.catalog.datafiles import load_data
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.parsers import get_parser
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

LSPCI = Path(__file__).parent / "fixtures" / "outputs" / "lspci"
CORPUS = Path(__file__).parent / "incidents"
# plain `lspci -vvv` of a 7900 XTX beside a Ryzen 7000's iGPU, printed by a pciutils whose pci.ids knew
# neither ("Device 164e", "Device 744c"): ROCm/rccl#1421, in the corpus
RCCL_IGPU = CORPUS / "gpu-not-visible" / "rccl-7900xtx-igpu-gfx1036-invalid-kernel-file"


@pytest.mark.parametrize("device, target", [
    ("164e", "gfx1036"),   # Raphael: the kernel's APU table gives GC 10.3.6, kfd_device.c gfx1036
    ("15bf", "gfx1103"),   # Phoenix1: GC 11.0.1
    ("1681", "gfx1035"),   # Rembrandt: ROCT's gfxip_lookup_table (YELLOW_CARP 10.3.5)
    ("67df", "gfx803"),    # Ellesmere (RX 470-590): ROCT 8.0.3
    ("744c", "gfx1100"),   # Navi 31 [Radeon RX 7900 XT/7900 XTX/...]: product names
    ("74a1", "gfx942"),    # Aqua Vanjaram [Instinct MI300X]
    ("74b5", "gfx942"),    # [Instinct MI300X VF]: a VF is its GPU's product
    ("75a3", "gfx950"),    # [Instinct MI355X]
    ("7551", "gfx1201"),   # Navi 48 [Radeon AI PRO R9700]
    ("6604", "gfx602"),    # Opal XT [Radeon R7 M265]: amdgpu's pciidlist CHIP_OLAND, AMDGPUUsage gfx602
    ("6798", "gfx600"),    # Tahiti XT [Radeon HD 7970]: CHIP_TAHITI
    ("6819", "gfx601"),    # Pitcairn: CHIP_PITCAIRN
])
def test_device_ids_resolve_to_the_targets_their_sources_give(device: str, target: str) -> None:
    assert load_data("amd_pci_targets")["devices"][device]["target"] == target


def test_an_id_no_source_resolves_is_left_out() -> None:
    devices = load_data("amd_pci_targets")["devices"]
    # Granite Ridge's iGPU: pci.ids names no product, the kernel's APU table has no row for it
    assert "13c0" not in devices
    assert all(len(k) == 4 and row["target"].startswith("gfx") and row["via"] for k, row in devices.items())


def test_plain_lspci_keeps_the_id_of_a_device_its_pci_ids_did_not_name() -> None:
    rows = get_parser("lspci")((RCCL_IGPU / "bundle" / "commands" / "lspci -n -D" / "stdout").read_text())
    gpus = [(r["slot"], r["vendor"], r["class"], r["device"]) for r in rows if r["vendor"] == "1002"]
    assert gpus == [("0000:16:00.0", "1002", "0300", "164e"), ("0000:06:00.0", "1002", "0300", "744c")]


def _gpu_support(tmp_path: Path, lspci: str, version: str):  # type: ignore[no-untyped-def]
    files = {"commands/lspci -n -D/stdout": lspci, "files/opt/rocm/.info/version": version + "\n"}
    return triage_bundle_step(tmp_path, files, "gpu-not-visible", "gpu_support")[1]


def test_an_rx580_from_lspci_alone_is_judged_against_the_release(tmp_path: Path) -> None:
    """The RX 580 of ROCm/legacy-rocm-build#1211 (`lspci -nnk`, 1002:67df) under ROCm 6.2, whose list ends at gfx1030."""
    step = _gpu_support(tmp_path, (LSPCI / "lspci-nnk-rx580.txt").read_text(), "6.2.0-66")
    assert step.state == State.WARN
    assert step.check.message.startswith("gfx803 (Ellesmere [Radeon RX 470/480/570/570X/580/580X/590] at 0000:01:00.0, 1002:67df)")
    assert "not on ROCm 6.2.0's list of supported GPUs" in step.check.message
    assert any(e.startswith("its PCI device id: gfx803") for e in step.check.evidence)


def test_lspci_ids_are_read_through_the_point_release_list(tmp_path: Path) -> None:
    """An MI300X (74a1) and an RX 9070 (7550) from `lspci -nn`: RDNA4 joined the list in ROCm 6.4.1."""
    step = _gpu_support(tmp_path, (LSPCI / "lspci-nn-mi300x.txt").read_text(), "6.4.1-21")
    assert step.state == State.PASS and step.check.message.startswith("ROCm 6.4.1 supports gfx942, gfx1201")
    step = _gpu_support(tmp_path / "older", (LSPCI / "lspci-nn-mi300x.txt").read_text(), "6.4.0-47")
    assert step.state == State.WARN and step.check.message.startswith("gfx1201 (")


def test_a_name_an_older_pci_ids_printed_is_not_guessed(tmp_path: Path) -> None:
    """"Vega [Radeon RX Vega]" is no name of today's pci.ids: the GPU is not judged rather than guessed."""
    step = _gpu_support(tmp_path, (LSPCI / "lspci-plain-vega-and-gtx970.txt").read_text(), "6.2.0-66")
    assert step.state == State.SKIPPED


def test_a_missing_code_error_beside_an_unmasked_igpu_names_the_igpu() -> None:
    report = triage_target(TriageRequest(target="", bundle=str(RCCL_IGPU / "bundle"), runbooks=("gpu-not-visible",),
                                         vars={"log": "/ticket/rccl.log"}))
    rb = report.runbooks[0]
    step = next(s for s in rb.steps if s.step_id == "job_code_igpu")
    assert step.state == State.WARN
    assert "the integrated gfx1036 (0000:16:00.0, 1002:164e Raphael)" in step.check.message
    assert "beside the discrete gfx1100" in step.check.message
    assert any("NCCL WARN Cuda failure 'invalid kernel file'" in e for e in step.check.evidence)
    assert any("PCI device id: gfx1036 at 0000:16:00.0" in e and "(integrated)" in e for e in step.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "igpu-used-by-job"


def _gpu_support_no_release(tmp_path: Path, lspci: str):  # type: ignore[no-untyped-def]
    return triage_bundle_step(tmp_path, {"commands/lspci -n -D/stdout": lspci}, "gpu-not-visible", "gpu_support")


def test_a_target_no_release_ever_listed_is_named_without_the_nodes_release(tmp_path: Path) -> None:
    """An RX 6700 (Navi 22, 1002:73df, gfx1031) with no ROCm release in the evidence: gfx1031 is on none of AMD's
    lists (ROCm 1.9 to 7.2 in data rocm_supported_gpus; 1.0-1.8 name chips, not targets), so the release does not matter."""
    rb, step = _gpu_support_no_release(tmp_path, (LSPCI / "lspci-nnk-rx6700-navi22.txt").read_text())
    assert step.state == State.WARN
    assert step.check.message.startswith("gfx1031 (Navi 22 [Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT] at 0000:0a:00.0, 1002:73df)")
    assert "is on no ROCm release's list of supported GPUs (AMD's lists for ROCm 1.9 to 7.2)" in step.check.message
    assert any(e.startswith("its PCI device id: gfx1031") for e in step.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "unsupported-gpu"


def test_a_target_later_releases_dropped_names_its_last_release(tmp_path: Path) -> None:
    """The RX 580 (gfx803) without a release: AMD listed it up to ROCm 3.10, so the check cannot decide, and says
    from which release on it is unsupported and the command that settles it (guessing the era was measured wrong
    more often than right, twice: docs/compatibility-data.md)."""
    rb, step = _gpu_support_no_release(tmp_path, (LSPCI / "lspci-nnk-rx580.txt").read_text())
    assert step.state == State.UNKNOWN
    assert "gfx803 was last listed as supported in ROCm 3.10: unsupported on any later release" in step.check.message
    assert "cat /opt/rocm/.info/version" in step.check.message
    assert "unsupported-gpu" not in [d.diagnosis_id for d in rb.diagnoses]


def test_a_target_dropped_later_still_needs_the_nodes_release(tmp_path: Path) -> None:
    """Vega 10 (Chip ID 0x687f, gfx900), listed up to ROCm 4.5: a node may still run a release that lists it, so
    without the release the check says from which release on it is unsupported and the command that settles it."""
    fragment = (Path(__file__).parent / "fixtures/outputs/rocminfo/agent-fragment-vega10.txt").read_text()
    _, step = triage_bundle_step(tmp_path, {"commands/rocminfo/stdout": fragment}, "gpu-not-visible", "gpu_support")
    assert step.state == State.UNKNOWN
    assert "gfx900 was last listed as supported in ROCm 4.5: unsupported on any later release" in step.check.message
    assert "cat /opt/rocm/.info/version" in step.check.message


def test_a_rocminfo_agent_pasted_without_its_isa_is_named_by_its_chip_id(tmp_path: Path) -> None:
    """RVC-WebUI#2454's RX 570 agent block (no banner, no ISA lines): Chip ID 0x67df is gfx803 through amd_pci_targets."""
    fragment = (Path(__file__).parent / "fixtures/outputs/rocminfo/agent-fragment-rx570.txt").read_text()
    rb, step = triage_bundle_step(tmp_path, {"commands/rocminfo/stdout": fragment}, "gpu-not-visible", "gpu_support")
    assert step.state == State.UNKNOWN
    assert step.check.message.startswith("GPU target(s) gfx803, but the ROCm release is not in the evidence")
    fixed = {**{"commands/rocminfo/stdout": fragment}, "files/opt/rocm/.info/version": "5.7.1-98\n"}
    _, step = triage_bundle_step(tmp_path / "with-release", fixed, "gpu-not-visible", "gpu_support")
    assert step.state == State.WARN and "not on ROCm 5.7.1's list of supported GPUs" in step.check.message
    assert any(e.startswith("rocminfo: gfx803 (Ellesmere [Radeon RX 470/480/570/570X/580/580X/590])")
               for e in step.check.evidence)

# The Strix Halo iGPU (1002:1586, gfx1151) of a Proxmox host's `lspci -nn` (the corpus case
# proxmox-host-strix-halo-vfio-passthrough-benign): AMD lists Ryzen APUs in a Ryzen matrix of their own, not in
# the Instinct/Radeon "GPU / LLVM target" row (data rocm_supported_gpus `ryzen:`).
STRIX_HALO_LSPCI = CORPUS / "gpu-not-visible" / "proxmox-host-strix-halo-vfio-passthrough-benign" / "bundle" / "commands" / "lspci -n -D" / "stdout"


def test_a_ryzen_apu_is_not_called_unlisted_by_every_release(tmp_path: Path) -> None:
    """Without the node's release, gfx1151 is on AMD's Ryzen matrix, so "on no ROCm release's list" would be false."""
    rb, step = _gpu_support_no_release(tmp_path, STRIX_HALO_LSPCI.read_text())
    assert step.state == State.UNKNOWN
    assert step.check.message.startswith("GPU target(s) gfx1151, but the ROCm release is not in the evidence")
    assert "unsupported-gpu" not in [d.diagnosis_id for d in rb.diagnoses]


def test_a_ryzen_apu_is_judged_by_the_ryzen_matrix_where_rocmdoctor_holds_it(tmp_path: Path) -> None:
    step = _gpu_support(tmp_path, STRIX_HALO_LSPCI.read_text(), "7.14.0")
    assert step.state == State.PASS
    assert step.check.message == "ROCm 7.14.0 supports gfx1151 through AMD's Ryzen matrix"
    assert any(e.startswith("AMD Ryzen matrix, ROCm 7.14 (ryzen-core-sdk): gfx1151") for e in step.check.evidence)


def test_a_ryzen_apu_between_the_first_ryzen_docs_and_the_held_matrix_is_not_judged(tmp_path: Path) -> None:
    """ROCm 7.2's Instinct/Radeon row lacks gfx1151; its Ryzen matrix is not transcribed, so no verdict is guessed."""
    step = _gpu_support(tmp_path, STRIX_HALO_LSPCI.read_text(), "7.2.0")
    assert step.state == State.UNKNOWN
    assert "not on ROCm 7.2.0's Instinct/Radeon list" in step.check.message
    assert "Use ROCm on Radeon and Ryzen" in step.check.message


def test_a_ryzen_apu_before_amds_ryzen_docs_is_judged_by_the_release_list(tmp_path: Path) -> None:
    step = _gpu_support(tmp_path, STRIX_HALO_LSPCI.read_text(), "6.4.1-21")
    assert step.state == State.WARN and "not on ROCm 6.4.1's list of supported GPUs" in step.check.message


def test_a_gfx6_gpu_from_lspci_is_on_no_release_list(tmp_path: Path) -> None:
    """ROCm/ROCm#1492's R7 M265 (an Oland, GFX6): `lspci -nn` alone names it, and no ROCm release ever listed gfx602,
    so it is unsupported whichever release the node runs (the thread: "Opal XT is not a ROCm supported card")."""
    case = CORPUS / "gpu-not-visible" / "r7-m265-opal-rocm-smi-no-gpus" / "bundle"
    report = triage_target(TriageRequest(target="", bundle=str(case), runbooks=("gpu-not-visible",)))
    rb = report.runbooks[0]
    step = next(s for s in rb.steps if s.step_id == "gpu_support")
    assert step.check is not None and step.check.state == State.WARN
    assert "gfx602" in step.check.message and "1002:6604" in step.check.message
    assert rb.diagnoses[0].diagnosis_id == "unsupported-gpu"
