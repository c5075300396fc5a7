"""Which BARs the PCI core left unplaced: ROCm/ROCm#6281 (Linux 6.8, SR-IOV) and
ROCm/legacy-rocm-build#2927 (the older form), from the corpus cases that hold those logs."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.kernel_log import classify_amdgpu_line
from rocmdoctor.parsers.pci_bars import parse_pci_bar_placement
from rocmdoctor.simnode.formats.kernel_lines import PCI_BAR_VF_REALLOC

CASES = Path(__file__).resolve().parents[1] / "incidents" / "gpu-not-visible"


def _rows(case: str) -> dict[tuple[str, str], dict]:
    text = (CASES / case / "bundle" / "commands" / "dmesg" / "stdout").read_text()
    return {(r["bdf"], r["bar"]): r for r in parse_pci_bar_placement(text)}


def test_a_bar_assigned_after_its_failures_is_placed_and_one_never_assigned_is_not():
    rows = _rows("mi210-supermicro-vf-bars-take-bar5-realloc-off")
    bar0, bar5, bar4 = rows[("0000:c5:00.0", "BAR 0")], rows[("0000:c5:00.0", "BAR 5")], rows[("0000:c5:00.0", "BAR 4")]
    assert (bar0["placed"], bar0["vf"], bar0["size"], bar0["failures"]) == (True, False, 64 << 30, 4)
    assert (bar5["placed"], bar5["vf"], bar5["size"], bar5["failures"]) == (False, False, 512 << 10, 12)
    assert bar5["line"] == "[    4.192929] pci 0000:c5:00.0: BAR 5 [mem size 0x00080000]: failed to assign"
    assert (bar4["placed"], bar4["size"]) == (False, 256)


def test_virtual_function_bars_are_told_apart_from_the_devices_own():
    rows = _rows("mi210-supermicro-vf-bars-take-bar5-realloc-off")
    vf0 = rows[("0000:c5:00.0", "VF BAR 0")]
    assert (vf0["vf"], vf0["placed"], vf0["size"]) == (True, True, 64 << 30)
    assert rows[("0000:c5:00.0", "VF BAR 5")]["placed"] is False
    # a BAR placed by the firmware never failed: it has no row ("BAR 0 [mem 0x6f000000000-...]")
    assert ("0000:62:00.0", "BAR 0") not in rows


def test_older_form_numbers_sriov_bars_7_to_12():
    rows = _rows("mi100-am4-bar-no-space")
    assert set(rows) == {("0000:25:00.0", "BAR 7"), ("0000:25:00.0", "BAR 10")}
    assert all(r["vf"] and not r["placed"] and r["size"] == 1 << 20 for r in rows.values())


def test_a_log_without_bar_lines_has_no_rows():
    assert parse_pci_bar_placement("[    8.839735] amdgpu 0000:c3:00.0: amdgpu: Fatal error during GPU init\n") == []


def test_the_simulated_nodes_lines_are_bar_failures_and_placements():
    kinds = [(classify_amdgpu_line(m) or ("-",))[0] for m, _ in PCI_BAR_VF_REALLOC]
    assert set(kinds) == {"-", "pci_bar", "pci_bar_assigned"}   # "-": the "contains BAR 0 for 1 VFs" note
    assert kinds[0] == "-" and kinds[-1] == "pci_bar"


def test_the_expansion_rom_of_the_older_form_is_flagged():
    # a Kubuntu forum post, "Problem with NVIDIA FX5700 in Kubuntu 16.10" (2017): kernel 4.8's
    # dmesg; a driver runs without its ROM, so an unplaced ROM never fails a GPU
    text = ("[    0.226292] pci 0000:01:00.0: BAR 6: no space for [mem size 0x00020000 pref]\n"
            "[    0.226295] pci 0000:01:00.0: BAR 6: failed to assign [mem size 0x00020000 pref]\n")
    [row] = parse_pci_bar_placement(text)
    assert (row["bar"], row["rom"], row["vf"], row["placed"], row["size"]) == ("BAR 6", True, False, False, 128 << 10)
