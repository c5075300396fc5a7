from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

from rocmdoctor.parsers.ids import parse_etc_group, parse_id
from rocmdoctor.simnode.formats.system import render_etc_group, render_id


def test_real_id_samples():
    u = parse_id(sample("id/id-ubuntu.txt"))
    assert (u["uid"], u["user"], u["gid"], u["group"]) == (1000, "ubuntu", 1000, "ubuntu")
    assert {"gid": 44, "name": "video"} in u["groups"] and "render" not in u["group_names"]
    assert len(u["groups"]) == 12
    r = parse_id(sample("id/id-root.txt"))
    assert r["uid"] == 0 and r["group_names"] == ["root"]
    assert get_parser("id") is parse_id


def test_id_roundtrip_and_numeric_group():
    text = render_id(1001, "alice", 1001, "alice", [(1001, "alice"), (44, "video"), (992, "render")])
    assert parse_id(text)["group_names"] == ["alice", "video", "render"]
    odd = parse_id("uid=1001(alice) gid=1001(alice) groups=1001(alice),992 context=unconfined_u:unconfined_r\n")
    assert odd["groups"][1] == {"gid": 992, "name": None}


def test_etc_group_roundtrip():
    text = render_etc_group([("video", 44, ["alice"]), ("render", 992, ["alice", "bob"]), ("alice", 1001, [])])
    groups = parse_etc_group("# comment\n" + text)
    assert groups["render"] == {"gid": 992, "members": ["alice", "bob"]}
    assert groups["alice"]["members"] == []


def test_errors():
    with pytest.raises(ParseError, match="not `id` output"):
        parse_id("id: 'carol': no such user\n")
    with pytest.raises(ParseError, match="line 1"):
        parse_etc_group("video 44 alice\n")


def test_groups_as_pasted() -> None:
    from rocmdoctor.parsers.ids import parse_groups

    # ROCm/legacy-rocm-build#5379 (`groups` in an LXC container) and ROCm/ROCm-docker#116 (rocm-terminal)
    assert parse_groups("root video render\n") == {"user": None, "groups": ["root", "video", "render"]}
    assert parse_groups("rocm-user sudo video\n")["groups"] == ["rocm-user", "sudo", "video"]
    assert parse_groups("alice : alice video render\n") == {"user": "alice", "groups": ["alice", "video", "render"]}
    with pytest.raises(ParseError):
        parse_groups("groups: 'bob': no such user\n")
