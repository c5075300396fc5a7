"""Kernel config lines: the format scripts/kconfig writes (lines from flatcar/Flatcar#1935 and
siderolabs/pkgs#893, as in the kernel-without-kfd simulated node)."""

import pytest

from rocmdoctor.parsers import ParseError, get_parser
from rocmdoctor.parsers.kconfig import parse_kernel_config
from rocmdoctor.simnode.scenarios.real_causes import KCONFIG_WITHOUT_KFD


def test_set_and_unset_options_with_the_source_header():
    r = parse_kernel_config("== /proc/config.gz\n" + KCONFIG_WITHOUT_KFD)
    assert r["source"] == "/proc/config.gz"
    assert r["options"]["CONFIG_DRM_AMDGPU"] == "m"
    assert r["options"]["CONFIG_HSA_AMD"] == "n" and r["lines"]["CONFIG_HSA_AMD"] == "# CONFIG_HSA_AMD is not set"
    assert "end of Display Engine Configuration" not in str(r)
    assert get_parser("kernel_config") is parse_kernel_config


def test_enabled_kfd_and_string_values():
    r = parse_kernel_config('CONFIG_HSA_AMD=y\nCONFIG_HSA_AMD_SVM=y\nCONFIG_EXTRA_FIRMWARE="intel-ucode/06-cf-02"\n')
    assert r["source"] is None and r["options"]["CONFIG_HSA_AMD"] == "y"
    assert r["options"]["CONFIG_EXTRA_FIRMWARE"] == '"intel-ucode/06-cf-02"'


def test_no_config_found_is_a_result_not_an_error():
    assert parse_kernel_config("== none\n") == {"source": None, "options": {}, "lines": {}}


def test_other_text_is_refused():
    with pytest.raises(ParseError):
        parse_kernel_config("Linux version 6.12.74-flatcar\n")
