from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

from rocmdoctor.parsers.lspci import parse_lspci
from rocmdoctor.simnode.formats.kernel import render_lspci_n


def test_real_lspci_n_without_domain():
    devs = parse_lspci(sample("lspci/lspci-n-amd-laptop.txt"))
    assert len(devs) == 24
    assert devs[0] == {"slot": "0000:00:00.0", "class": "0600", "vendor": "1022", "device": "9600",
                       "rev": None, "prog_if": None, "driver": None, "name": None, "link_cap": None, "link_sta": None}
    assert devs[11]["rev"] == "3a"
    assert [d for d in devs if d["class"] == "0300"][0]["device"] == "9613"


def test_real_lspci_nn_mi300x():
    devs = parse_lspci(sample("lspci/lspci-nn-mi300x.txt"))
    assert devs[0]["class"] == "1200" and (devs[0]["vendor"], devs[0]["device"]) == ("1002", "74a1")
    assert devs[2]["rev"] == "c1"


def test_roundtrip_and_errors():
    gpus = [{"slot": f"0000:{b:02x}:00.0", "class": "1200", "vendor": "1002", "device": "74a1", "rev": None}
            for b in (5, 0x26, 0x46)]
    parsed = parse_lspci(render_lspci_n(gpus + [{"slot": "0000:00:00.0", "class": "0600", "vendor": "1022",
                                                  "device": "14a4", "rev": "01"}]))
    assert [p["slot"] for p in parsed[:3]] == ["0000:05:00.0", "0000:26:00.0", "0000:46:00.0"]
    assert parsed[3]["rev"] == "01"
    assert parse_lspci("0000:05:00.0 1200: 1002:74a1\n\tSubsystem: 1002:74a1\n")[0]["device"] == "74a1"
    with pytest.raises(ParseError, match="line 1"):
        parse_lspci("pcilib: Cannot open /sys/bus/pci\n")


def test_real_lspci_nnk_names_the_driver():
    (gpu,) = parse_lspci(sample("lspci/lspci-nnk-rx580.txt"))
    assert (gpu["slot"], gpu["class"], gpu["vendor"], gpu["device"], gpu["rev"], gpu["driver"]) == (
        "0000:01:00.0", "0300", "1002", "67df", "e7", "amdgpu")


def test_real_busybox_lspci():
    (gpu,) = parse_lspci(sample("lspci/busybox-lspci-talos.txt"))
    assert (gpu["slot"], gpu["class"], gpu["vendor"], gpu["device"], gpu["driver"]) == (
        "0000:05:00.0", "0300", "1002", "1638", "amdgpu")


def test_real_plain_lspci_recognises_amd_gpus_by_name_only():
    devs = parse_lspci(sample("lspci/lspci-plain-vega-and-gtx970.txt"))
    by_slot = {d["slot"]: d for d in devs}
    assert (by_slot["0000:04:00.0"]["vendor"], by_slot["0000:04:00.0"]["class"]) == ("1002", "0300")
    assert by_slot["0000:04:00.0"]["rev"] == "c1" and by_slot["0000:04:00.0"]["device"] is None
    assert by_slot["0000:01:00.0"]["vendor"] is None          # NVIDIA: not guessed
    assert by_slot["0000:02:00.0"]["vendor"] == "1022"        # AMD's CPU-side bridge, not a GPU
    assert by_slot["0000:02:00.0"]["class"] is None


def test_lspci_nn_keeps_the_pci_ids_name():
    """ROCm/legacy-rocm-build#2995 (an Azure NGads VM): the name says the GPU is an SR-IOV VF."""
    (gpu,) = parse_lspci("0002:00:00.0 Display controller [0380]: Advanced Micro Devices, Inc. [AMD/ATI] "
                         "Navi 21 [Radeon Pro V620 MxGPU] [1002:73ae]\n")
    assert (gpu["slot"], gpu["class"], gpu["device"]) == ("0002:00:00.0", "0380", "73ae")
    assert gpu["name"] == "Advanced Micro Devices, Inc. [AMD/ATI] Navi 21 [Radeon Pro V620 MxGPU]"


def test_real_lspci_kvv_keeps_the_link_lines():
    """pciutils 3.6+ marks each LnkSta value ok / downgraded (dri-devel, RX 580 idle)."""
    port, gpu = parse_lspci(sample("lspci/lspci-kvv-rx580-idle-link.txt"))
    assert (gpu["slot"], gpu["class"], gpu["vendor"], gpu["driver"]) == ("0000:08:00.0", "0300", "1002", "amdgpu")
    assert gpu["link_cap"] == {"gts": 8.0, "width": 16, "downgraded": None,
                               "line": "LnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM L1, Exit Latency L1 <1us"}
    assert gpu["link_sta"] == {"gts": 2.5, "width": 16, "downgraded": True,
                               "line": "LnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)"}
    # LnkCap2 / LnkSta2 are other lines: the first LnkCap / LnkSta of the device is kept
    assert port["link_sta"]["gts"] == 2.5 and port["link_cap"]["width"] == 16


def test_older_lspci_link_lines_without_marks():
    """pciutils before the ok/downgraded marks, as quoted in ROCm/legacy-rocm-build#93 (its `##` included)."""
    text = (Path(__file__).resolve().parents[1] / "incidents/gpu-hardware-fault/fiji-gen1-at-idle-link-power-management"
            / "bundle/commands/lspci -n -D/stdout").read_text()
    by_slot = {d["slot"]: d for d in parse_lspci(text)}
    fiji = by_slot["0000:02:00.0"]
    assert (fiji["link_cap"]["gts"], fiji["link_cap"]["width"]) == (8.0, 16)
    assert (fiji["link_sta"]["gts"], fiji["link_sta"]["width"], fiji["link_sta"]["downgraded"]) == (2.5, 16, None)


def test_an_indented_device_line_is_still_a_device():
    """A paste that indented the device line with the detail lines (ROCm/ROCm#2767, an Azure MI25 VF)."""
    text = (Path(__file__).resolve().parents[1] / "incidents/gpu-not-visible"
            / "azure-mi25-mxgpu-rocm56-dkms-installed-no-longer-supported/bundle/commands/lspci -n -D/stdout").read_text()
    assert text.startswith("   ")
    (gpu,) = parse_lspci(text)
    assert (gpu["slot"], gpu["class"], gpu["vendor"]) == ("0002:00:00.0", "0300", "1002")
    assert "Instinct MI25 MxGPU" in gpu["name"]
