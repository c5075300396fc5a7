from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

from rocmdoctor.parsers.ps import parse_ps
from rocmdoctor.simnode.formats.system import render_ps


def test_roundtrip_with_spaces_in_comm_and_long_user():
    procs = [{"pid": 1, "stat": "Ss", "user": "root", "comm": "systemd"},
             {"pid": 48213, "stat": "Rl", "user": "alice", "comm": "python3"},
             {"pid": 48999, "stat": "D", "user": "alice", "comm": "pt_autograd_0"},
             {"pid": 3021, "stat": "Sl", "user": "alice", "comm": "Web Content"},
             {"pid": 77, "stat": "Z", "user": "verylongusername", "uid": 1234, "comm": "rccl-worker"}]
    parsed = parse_ps(render_ps(procs))
    assert [p["pid"] for p in parsed] == [1, 48213, 48999, 3021, 77]
    assert parsed[3]["comm"] == "Web Content"
    assert parsed[2]["state"] == "D" and parsed[4]["state"] == "Z"
    assert parsed[4]["user"] == "1234"   # procps prints the uid when the name is wider than USER
    assert get_parser("ps") is parse_ps


def test_header_skipped_and_errors():
    assert parse_ps("    PID STAT USER     COMMAND\n      1 Ss   root     systemd\n")[0]["comm"] == "systemd"
    with pytest.raises(ParseError, match="line 1"):
        parse_ps("error: unsupported option (BSD syntax)\n")
