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
