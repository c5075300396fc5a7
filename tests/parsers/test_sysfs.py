from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

from rocmdoctor.parsers.sysfs import (parse_hwmon_micro, parse_hwmon_milli, parse_kfd_properties,
                                      parse_pcie_link_speed, parse_pp_dpm, parse_ras_err_count)


def test_pp_dpm_real_samples():
    v = parse_pp_dpm(sample("sysfs/pp_dpm_sclk-vega56.txt"))
    assert v["current"] == 0 and v["current_mhz"] == 852 and v["max_mhz"] == 1590 and not v["deep_sleep"]
    assert len(v["levels"]) == 8
    mi = parse_pp_dpm(sample("sysfs/pp_dpm_sclk-mi300x.txt"))
    assert (mi["current"], mi["current_mhz"], mi["max_mhz"], mi["deep_sleep"]) == (1, 142, 2100, True)
    soc = parse_pp_dpm(sample("sysfs/pp_dpm_socclk-mi300x.txt"))
    assert soc["current"] == "S" and soc["current_mhz"] == 30 and soc["deep_sleep"] and len(soc["levels"]) == 3
    rdna = parse_pp_dpm(sample("sysfs/pp_dpm_sclk-rx7900xt.txt"))
    assert rdna["current_mhz"] == 31 and rdna["deep_sleep"]
    pcie = parse_pp_dpm(sample("sysfs/pp_dpm_pcie-rx7800xt.txt"))
    assert pcie["levels"][2] == {"index": 2, "mhz": 623, "gts": 16.0, "width": 16, "current": True}
    assert get_parser("pp_dpm") is parse_pp_dpm


def test_other_sysfs_samples():
    assert parse_ras_err_count(sample("sysfs/ras_umc_err_count-doc.txt")) == {
        "ue": 0, "ce": 1, "de": None, "inaccessible": False}
    props = parse_kfd_properties(sample("sysfs/kfd_properties-carrizo.txt"))
    assert props["vendor_id"] == 4098 and props["simd_count"] == 32 and props["simd_id_base"] == 2147483648
    assert parse_pcie_link_speed(sample("sysfs/current_link_speed-rx9070xt.txt")) == {
        "gts": 32.0, "gen": 5, "raw": "32.0 GT/s PCIe"}
    assert parse_pcie_link_speed(sample("sysfs/current_link_speed-vega56.txt"))["gen"] == 3


def test_value_edge_cases():
    assert parse_ras_err_count("Query currently inaccessible\n")["inaccessible"] is True
    assert parse_ras_err_count("ue: 3\nce: 0\nde: 2\n")["de"] == 2
    assert parse_pcie_link_speed("Unknown\n")["gts"] is None
    assert parse_pcie_link_speed("8 GT/s\n")["gen"] == 3
    assert parse_hwmon_milli("42000\n") == 42.0 and parse_hwmon_milli("-273150") == -273.15
    assert parse_hwmon_micro("132000000\n") == 132.0
    for fn, bad in [(parse_pp_dpm, "auto\n"), (parse_ras_err_count, "ue: 0\n"), (parse_kfd_properties, "a b c\n"),
                    (parse_pcie_link_speed, "fast"), (parse_hwmon_milli, "")]:
        with pytest.raises(ParseError):
            fn(bad)
