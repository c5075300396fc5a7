"""Renderers produce the real formats: byte-identical to verbatim samples where one exists,
and parse(render(x)) gives x back for the kernel/system sources."""

from pathlib import Path

import pytest

from rocmdoctor.parsers.kernel_log import parse_kernel_events
from rocmdoctor.parsers.sysfs import parse_kfd_properties, parse_pcie_link_speed, parse_pp_dpm, parse_ras_err_count
from rocmdoctor.simnode.formats import kernel, kernel_lines, system

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()


@pytest.mark.parametrize("rel,levels,current,kw", [
    ("sysfs/pp_dpm_sclk-mi300x.txt", [500, 142, 2100], 1, {}),
    ("sysfs/pp_dpm_socclk-mi300x.txt", [889, 1000, 1143], "S", {"deep_sleep_mhz": 30}),
    ("sysfs/pp_dpm_sclk-rx7900xt.txt", [500, 31, 2219], 1, {}),
    ("sysfs/pp_dpm_sclk-vega56.txt", [852, 991, 1138, 1269, 1312, 1474, 1538, 1590], 0, {"trailing_blank": True}),
])
def test_pp_dpm_byte_identical_to_real(rel, levels, current, kw):
    assert system.render_pp_dpm(levels, current, **kw) == sample(rel)


def test_other_sysfs_byte_identical():
    assert system.render_ras_err_count(0, 1) == sample("sysfs/ras_umc_err_count-doc.txt")
    assert system.render_link_speed(32.0) == sample("sysfs/current_link_speed-rx9070xt.txt")
    props = parse_kfd_properties(sample("sysfs/kfd_properties-carrizo.txt"))
    assert system.render_kfd_properties(props) == sample("sysfs/kfd_properties-carrizo.txt")


def test_kernel_renderers_byte_identical():
    assert kernel.render_dmesg([(9.282591, "amdgpu: Topology: Add CPU node")]) == \
        sample("kernel-log/mi210-probe-failure.dmesg").splitlines(keepends=True)[0]
    line = sample("modules/proc-modules-vbox.txt").splitlines(keepends=True)[4]
    assert kernel.render_proc_modules([{"name": "vboxdrv", "size": 454656, "refcount": 3,
                                        "deps": ["vboxpci", "vboxnetadp", "vboxnetflt"], "taint": "OE"}]) == line
    assert kernel.render_dkms_status([{"module": "amdgpu", "version": "6.10.5-2119913.24.04",
                                       "kernel": "6.8.0-55-generic", "status": "installed"}]) == \
        sample("dkms/dkms3-rocm.txt")
    head = sample("modinfo/amdgpu-dkms-head.txt").splitlines(keepends=True)[:2]
    assert kernel.render_modinfo({"filename": "/lib/modules/5.11.0-37-generic/updates/dkms/amdgpu.ko",
                                  "version": "5.11.14"}) == "".join(head)
    assert kernel.render_lspci_n([{"slot": "0e:00.0", "class": "0280", "vendor": "10ec", "device": "8172",
                                   "rev": "10"}]) == sample("lspci/lspci-n-amd-laptop.txt").splitlines(keepends=True)[22]
    assert system.render_id(0, "root", 0, "root", [(0, "root")]) == sample("id/id-root.txt")


@pytest.mark.parametrize("levels,current", [([500, 1300, 2100], 2), ([500, 2100], 0), ([900, 1100, 1300], None)])
def test_pp_dpm_roundtrip(levels, current):
    v = parse_pp_dpm(system.render_pp_dpm(levels, current))
    assert [lv["mhz"] for lv in v["levels"]] == levels and v["current"] == current
    assert v["max_mhz"] == max(levels) and not v["deep_sleep"]


@pytest.mark.parametrize("ue,ce,de", [(0, 0, None), (3, 17, None), (1, 0, 5), (None, None, None)])
def test_ras_roundtrip(ue, ce, de):
    v = parse_ras_err_count(system.render_ras_err_count(ue, ce, de))
    assert (v["ue"], v["ce"], v["de"], v["inaccessible"]) == (ue, ce, de, ue is None)


@pytest.mark.parametrize("gts,gen", [(2.5, 1), (16.0, 4), (32.0, 5)])
def test_link_speed_roundtrip(gts, gen):
    assert parse_pcie_link_speed(system.render_link_speed(gts))["gen"] == gen


@pytest.mark.parametrize("kind", ["healthy", *sorted(kernel_lines.FAULTS)])
def test_catalogue_renders_to_a_log_that_shows_the_fault(kind):
    msgs = kernel_lines.messages(kind, bdf="0000:05:00.0")
    events = parse_kernel_events(kernel.render_dmesg([(10.0 + i / 100, m) for i, m in enumerate(msgs)]))
    kinds = {e["kind"] for e in events}
    assert ("init_ok" if kind == "healthy" else kind) in kinds
    if kind == "healthy":
        assert kinds == {"init_ok"}
