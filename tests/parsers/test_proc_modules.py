from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

from rocmdoctor.parsers.proc_modules import parse_proc_modules
from rocmdoctor.simnode.formats.kernel import render_proc_modules


def test_real_sample_with_deps_and_taint():
    mods = parse_proc_modules(sample("modules/proc-modules-vbox.txt"))
    assert get_parser("proc_modules") is parse_proc_modules
    assert mods["vboxdrv"] == {"size": 454656, "refcount": 3, "deps": ["vboxpci", "vboxnetadp", "vboxnetflt"],
                               "state": "Live", "taint": "OE"}
    assert mods["pci_stub"]["deps"] == [] and mods["pci_stub"]["taint"] == ""
    assert parse_proc_modules(sample("modules/proc-modules-rapl.txt"))["intel_rapl_common"]["deps"] == ["intel_rapl_msr"]


def test_roundtrip_amdgpu_stack():
    mods = [{"name": "amdgpu", "size": 19922944, "refcount": 0, "deps": [], "taint": "OE"},
            {"name": "amdxcp", "size": 12288, "refcount": 1, "deps": ["amdgpu"], "taint": "OE"},
            {"name": "drm_ttm_helper", "size": 12288, "refcount": 1, "deps": ["amdgpu"], "state": "Loading"}]
    parsed = parse_proc_modules(render_proc_modules(mods))
    assert parsed["amdgpu"] == {"size": 19922944, "refcount": 0, "deps": [], "state": "Live", "taint": "OE"}
    assert parsed["drm_ttm_helper"]["state"] == "Loading" and parsed["amdxcp"]["deps"] == ["amdgpu"]


def test_bad_line():
    assert parse_proc_modules("") == {}
    with pytest.raises(ParseError, match="line 1"):
        parse_proc_modules("Module                  Size  Used by\namdgpu 1 0\n")
