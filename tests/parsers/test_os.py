from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

from rocmdoctor.parsers.os import parse_cmdline, parse_modprobe_conf
from rocmdoctor.simnode.formats.kernel import render_cmdline, render_modprobe_conf

# verbatim kernel command line from https://github.com/ROCm/legacy-rocm-build/issues/4533
REAL_CMDLINE = ("BOOT_IMAGE=/vmlinuz-6.8.0-55-generic root=/dev/mapper/ubuntu--vg-ubuntu--lv ro amd_iommu=on "
                "iommu=pt idle=poll hugepagesz=2M hugepages=8192 amdgpu.noretry=0")


def test_real_cmdline():
    c = parse_cmdline(REAL_CMDLINE + "\n")
    assert c["params"]["iommu"] == "pt" and c["params"]["ro"] is True
    assert c["modules"]["amdgpu"] == {"noretry": "0"}
    assert c["raw"] == REAL_CMDLINE and get_parser("cmdline") is parse_cmdline


def test_cmdline_roundtrip_quotes_and_repeats():
    args = [("BOOT_IMAGE", "/vmlinuz-6.8.0-45-generic"), ("nomodeset", True), ("console", "tty0"),
            ("console", "ttyS0,115200"), ("amdgpu.ras_enable", "0")]
    c = parse_cmdline(render_cmdline(args))
    assert c["args"] == [list(a) for a in args]
    assert c["params"]["console"] == "ttyS0,115200" and c["params"]["nomodeset"] is True
    assert parse_cmdline('dyndbg="file drm* +p" quiet')["params"]["dyndbg"] == "file drm* +p"
    with pytest.raises(ParseError):
        parse_cmdline("a\nb\n")


def test_cmdline_blacklisted_modules():
    # kmod's modprobe.blacklist= and the kernel's module_blacklist= take comma lists; a bare name blacklists nothing
    c = parse_cmdline("ro modprobe.blacklist=nouveau,amdgpu module_blacklist=amdgpu modprobe.blacklist quiet")
    assert c["blacklisted"] == {"nouveau": ["modprobe.blacklist=nouveau,amdgpu"],
                                "amdgpu": ["modprobe.blacklist=nouveau,amdgpu", "module_blacklist=amdgpu"]}
    assert parse_cmdline("ro quiet amdgpu.modeset=0")["blacklisted"] == {}


def test_modprobe_conf():
    text = ("# blacklist the in-tree driver\nblacklist amdgpu\n"
            + render_modprobe_conf([("options", "amdgpu", "ras_enable=0 noretry=1"),
                                    ("install", "amdgpu", "/bin/false")])
            + "options kfd \\\n  sched_policy=1\n")
    d = parse_modprobe_conf(text)
    assert [(x["directive"], x["module"]) for x in d] == [("blacklist", "amdgpu"), ("options", "amdgpu"),
                                                          ("install", "amdgpu"), ("options", "kfd")]
    assert d[1]["params"] == {"ras_enable": "0", "noretry": "1"} and d[2]["args"] == "/bin/false"
    assert d[3]["params"] == {"sched_policy": "1"} and d[3]["line"] == 5
    with pytest.raises(ParseError, match="line 1"):
        parse_modprobe_conf("blacklst amdgpu\n")


def test_log_cmdline_reads_the_kernels_first_line():
    """ROCm/legacy-rocm-build#4533's dmesg: the command line stands in for /proc/cmdline."""
    from rocmdoctor.parsers.os import parse_log_cmdline

    log = ("[    0.000000] Command line: BOOT_IMAGE=/vmlinuz-6.8.0-55-generic root=/dev/mapper/ubuntu--vg-ubuntu--lv ro "
           "amd_iommu=on iommu=pt idle=poll hugepagesz=2M hugepages=8192 amdgpu.noretry=0\n"
           "[   11.423005] [drm] amdgpu kernel modesetting enabled.\n")
    cl = parse_log_cmdline(log)
    assert cl["params"]["iommu"] == "pt" and cl["modules"]["amdgpu"] == {"noretry": "0"}
    assert cl["line"].startswith("[    0.000000] Command line: BOOT_IMAGE=")
    assert parse_log_cmdline("[   11.423005] [drm] amdgpu kernel modesetting enabled.\n") is None
