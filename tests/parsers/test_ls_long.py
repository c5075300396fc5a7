"""`ls -la /dev/kfd /dev/dri*` as a ticket pasted it (ROCm/legacy-rocm-build#5379)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError
from rocmdoctor.parsers.ls_long import parse_ls_long

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "outputs" / "ls"


def test_file_argument_and_directory_section_from_a_real_ticket() -> None:
    entries = parse_ls_long((FIXTURES / "ls-la-dev-kfd-dri-lxc.txt").read_text())
    assert sorted(entries) == ["/dev/dri/renderD128", "/dev/dri/renderD129", "/dev/kfd"]   # '.' and '..' skipped
    assert entries["/dev/kfd"] == {"type": "character special file", "mode": "666", "owner": "root",
                                   "group": "render", "links": 1, "major": 511, "minor": 0}
    assert entries["/dev/dri/renderD128"]["mode"] == "660" and entries["/dev/dri/renderD128"]["group"] == "video"
    assert (entries["/dev/dri/renderD129"]["major"], entries["/dev/dri/renderD129"]["minor"]) == (226, 129)


def test_modes_are_written_as_stat_prints_them() -> None:
    entries = parse_ls_long("c--------- 1 root root 1, 3 Sep 18 11:04 /dev/a\n"
                            "crw-rw----+ 1 root render 226, 128 Sep 18 11:04 /dev/b\n")
    assert entries["/dev/a"]["mode"] == "0" and entries["/dev/b"]["mode"] == "660"   # ACL '+' tolerated


def test_text_that_is_not_ls_long_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no `ls -l` entry"):
        parse_ls_long("ls: cannot access '/dev/kfd': No such file or directory\n")
