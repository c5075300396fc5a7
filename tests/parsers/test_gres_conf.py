"""gres.conf from real files (tests/fixtures/outputs/slurm/SOURCES.md)."""

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser
from rocmdoctor.parsers.slurm import parse_gres_conf

SLURM = Path(__file__).resolve().parents[1] / "fixtures/outputs/slurm"


def test_autodetect_line_and_records_with_comments():
    r = parse_gres_conf((SLURM / "gres.conf-autodetect-nvml").read_text())
    assert (r["autodetect"], r["autodetect_line"]) == ("nvml", 6)
    assert [rec["fields"] for rec in r["records"]] == [{"AutoDetect": "nvml"}, {"Name": "gpu"}, {"Name": "gpu"}]
    assert get_parser("gres_conf") is parse_gres_conf


def test_file_lines_without_autodetect():
    r = parse_gres_conf((SLURM / "gres.conf-files-h100").read_text())
    assert r["autodetect"] is None
    assert r["records"][1] == {"line": 2, "fields": {"Name": "gpu", "Type": "h100", "File": "/dev/nvidia1"}}


def test_rsmi_mode_is_lower_cased_and_a_stray_word_is_refused():
    assert parse_gres_conf("AutoDetect=RSMI\n")["autodetect"] == "rsmi"
    with pytest.raises(ParseError, match="line 2"):
        parse_gres_conf("AutoDetect=rsmi\nName gpu\n")


def test_slurmd_log_is_split_at_the_last_start():
    from rocmdoctor.parsers.slurm import parse_slurmd_log

    start = (SLURM / "slurmd.log-start").read_text()
    complaint = "slurmd-nscale-compute-gpu-16: Configured with rsmi, but that lib wasn't found.\n"
    before = parse_slurmd_log(complaint + start)
    assert before["started"] == "[2025-09-16T16:31:31.677] slurmd version 25.05.3 started"
    assert not any("Configured with rsmi" in line for line in before["since_start"])
    assert parse_slurmd_log(complaint)["since_start"] == [complaint.strip()]    # no start in the tail


def test_slurmd_log_merge_of_configured_and_detected_gpus() -> None:
    from rocmdoctor.parsers.slurm import parse_slurmd_log

    r = parse_slurmd_log((SLURM / "slurmd.log-gpus-ignored-mi300x").read_text())
    assert r["detected"] == 8
    assert r["discarded_header"].endswith("error: Discarding the following config-only GPU due to lack of File specification:")
    assert r["discarded"] == ["GRES[gpu] Type:8 Count:1 Cores(224):(null)  Links:(null) "
                              "Flags:HAS_TYPE,ENV_NVML,ENV_RSMI,ENV_ONEAPI,ENV_OPENCL,ENV_DEFAULT File:(null) UniqueId:(null)"]
    # the stored thread stops at the warning: the header alone still says GPUs are ignored
    assert r["ignored_header"].endswith("warning: The following autodetected GPUs are being ignored:")
    assert r["ignored"] == []
    older = parse_slurmd_log((SLURM / "slurmd.log-gpus-ignored-older").read_text())
    assert older["detected"] is None and older["discarded_header"] is None
    assert [g.split(" File:")[1].split(",")[0] for g in older["ignored"]] == ["/dev/nvidia2", "/dev/nvidia2"]


def test_slurmd_merge_before_the_last_start_is_history() -> None:
    from rocmdoctor.parsers.slurm import parse_slurmd_log

    ignored = (SLURM / "slurmd.log-gpus-ignored-older").read_text()
    r = parse_slurmd_log(ignored + (SLURM / "slurmd.log-start").read_text())
    assert r["ignored_header"] is None and r["ignored"] == [] and r["detected"] is None
