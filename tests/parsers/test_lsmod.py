"""lsmod's table as tickets paste it: who holds what tells the kernel's amdgpu from ROCm's.

Fixtures are verbatim pastes (tests/fixtures/outputs/lsmod/SOURCES.md); kmod tools/lsmod.c and
busybox lsmod give the header and line formats the synthetic lines below follow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser
from rocmdoctor.parsers.lsmod import parse_lsmod

LSMOD = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs/lsmod"


def sample(name: str) -> dict:
    return parse_lsmod((LSMOD / name).read_text())


def test_rocm_dkms_stack_is_held_by_amdgpu() -> None:
    mods = sample("lsmod-grep-amd-rocm-dkms-mi300x-vf.txt")
    assert get_parser("lsmod") is parse_lsmod
    assert mods["amdgpu"] == {"size": 17424384, "refcount": 4, "deps": [], "state": None, "taint": ""}
    assert mods["amdkcl"]["deps"] == ["amd_sched", "amdttm", "amdgpu"]
    assert mods["amdttm"]["deps"] == ["amdgpu", "amddrm_ttm_helper"]
    assert "ttm" not in mods and "gpu_sched" not in mods


def test_in_tree_stack_and_long_names() -> None:
    mods = sample("lsmod-grep-amdgpu-in-tree-ubuntu2404-6.14.txt")
    assert mods["ttm"]["deps"] == ["amdgpu", "drm_ttm_helper"]
    assert mods["gpu_sched"]["deps"] == ["amdxdna", "amdgpu"]
    assert mods["drm_panel_backlight_quirks"] == {"size": 12288, "refcount": 1, "deps": ["amdgpu"],
                                                  "state": None, "taint": ""}
    alma = sample("lsmod-grep-amd-in-tree-alma91.txt")
    assert alma["amdgpu"]["refcount"] == 21 and alma["edac_mce_amd"]["deps"] == []


def test_dkms_helpers_loaded_without_amdgpu() -> None:
    mods = sample("lsmod-grep-amd-dkms-amdgpu-failed-ubuntu1804.txt")
    assert "amdgpu" not in mods
    assert mods["amdkcl"]["deps"] == ["amdttm", "amd_sched"] and mods["amdttm"]["refcount"] == 0


def test_header_and_busybox_lines() -> None:
    text = ("Module                  Size  Used by\n"
            "amdgpu              19746816  0\n"
            "ttm                    86016  2 amdgpu,drm_ttm_helper\n"
            # busybox lsmod prints the header over /proc/modules' own lines
            "drm_ttm_helper 16384 1 amdgpu, Live 0x0000000000000000 (OE)\n")
    mods = parse_lsmod(text)
    assert list(mods) == ["amdgpu", "ttm", "drm_ttm_helper"]
    assert mods["drm_ttm_helper"] == {"size": 16384, "refcount": 1, "deps": ["amdgpu"], "state": "Live", "taint": "OE"}
    assert parse_lsmod("") == {}


def test_not_an_lsmod_line() -> None:
    with pytest.raises(ParseError, match="line 2 is not an lsmod line"):
        parse_lsmod("amdgpu 19746816 0\n$ lsmod | grep amd\n")


def test_used_by_names_the_modules_amdgpu_uses() -> None:
    """The `used_by` filter both module checks read: amdgpu's users on a ROCm DKMS stack, none where
    amdgpu failed to load (its helpers are there, used by each other only)."""
    from rocmdoctor.catalog.expressions import FILTERS

    used_by = FILTERS["used_by"]
    assert used_by(sample("lsmod-grep-amd-rocm-dkms-mi300x-vf.txt"), "amdgpu") == [
        "amd_sched", "amddrm_buddy", "amddrm_ttm_helper", "amdkcl", "amdttm", "amdxcp", "cec", "drm",
        "drm_kms_helper", "i2c_algo_bit"]
    assert used_by(sample("lsmod-grep-amd-dkms-amdgpu-failed-ubuntu1804.txt"), "amdgpu") == []
    assert used_by(None, "amdgpu") == []
