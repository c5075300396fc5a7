"""The PCIe path above each GPU (pci_link_tree): which device's link files describe the slot."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError
from rocmdoctor.parsers.pci_links import parse_pci_link_tree

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "outputs" / "sysfs"


def test_navi_package_link_is_read_at_its_upstream_port() -> None:
    tree = parse_pci_link_tree((FIXTURES / "pci-path-grep-navi23.txt").read_text())
    assert set(tree["devices"]) == {"0000:00:01.1", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"}
    assert tree["devices"]["0000:03:00.0"]["parent"] == "0000:02:00.0"
    [gpu] = tree["gpus"]
    # the GPU function says 16 GT/s x16 (its internal link); the package's link is x8 at 8 GT/s
    assert tree["devices"]["0000:03:00.0"]["cur"]["gts"] == 16.0
    assert (gpu["bdf"], gpu["link_bdf"], gpu["internal"]) == ("0000:03:00.0", "0000:01:00.0", ["0000:02:00.0", "0000:01:00.0"])
    assert (gpu["cur"]["gts"], gpu["width"], gpu["card_max"]["gts"], gpu["card_max_width"]) == (8.0, 8, 16.0, 8)
    # the root port is on the path but its files are not in the source: its capability is unknown
    assert gpu["port_bdf"] == "0000:00:01.1" and gpu["port_max"] is None


def test_gpu_without_package_switch_is_its_own_link_and_rootfs_prefix_is_ignored() -> None:
    text = "\n".join([
        "/tmp/root/sys/devices/pci0000:00/0000:00:01.1/vendor:0x1022",
        "/tmp/root/sys/devices/pci0000:00/0000:00:01.1/class:0x060400",
        "/tmp/root/sys/devices/pci0000:00/0000:00:01.1/max_link_speed:32.0 GT/s PCIe",
        "/tmp/root/sys/devices/pci0000:00/0000:00:01.1/max_link_width:16",
        "/tmp/root/sys/devices/pci0000:00/0000:00:01.1/0000:05:00.0/vendor:0x1002",
        "/tmp/root/sys/devices/pci0000:00/0000:00:01.1/0000:05:00.0/current_link_speed:32.0 GT/s PCIe",
        "/tmp/root/sys/devices/pci0000:00/0000:00:01.1/0000:05:00.0/current_link_width:8",
        "/tmp/root/sys/devices/pci0000:00/0000:00:01.1/0000:05:00.0/max_link_width:16",
        # a second GPU under the same root port is listed with the port's files again
        "/tmp/root/sys/devices/pci0000:00/0000:00:01.1/max_link_width:16",
    ])
    [gpu] = parse_pci_link_tree(text)["gpus"]
    assert (gpu["link_bdf"], gpu["port_bdf"], gpu["width"], gpu["port_max"]["gts"]) == ("0000:05:00.0", "0000:00:01.1", 8, 32.0)


def test_empty_output_is_no_gpu_and_other_text_is_refused() -> None:
    assert parse_pci_link_tree("") == {"devices": {}, "gpus": []}
    with pytest.raises(ParseError, match="line 1"):
        parse_pci_link_tree("grep: /sys/devices/pci0000:00/0000:00:01.1/max_link_speed: Invalid argument")
    with pytest.raises(ParseError, match="not a number"):
        parse_pci_link_tree("/sys/devices/pci0000:00/0000:00:01.1/current_link_width:x16")
