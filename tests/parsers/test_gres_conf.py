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
