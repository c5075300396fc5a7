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


def test_prompt_line_names_the_directory_of_a_grepped_listing() -> None:
    """`ls -la /dev | grep kfd` prints the bare name; the pasted prompt line says where it is
    (ROCm/ROCT-Thunk-Interface#36, verbatim, German month name included)."""
    entries = parse_ls_long("$ ls -la /dev | grep kfd\ncrw-------   1 root    root    234,   0 Mai 21 05:13 kfd\n")
    assert entries == {"/dev/kfd": {"type": "character special file", "mode": "600", "owner": "root",
                                    "group": "root", "links": 1, "major": 234, "minor": 0}}
    # a file argument prints its own absolute name: the prompt changes nothing
    assert list(parse_ls_long("$ ls -l /dev/kfd\ncrw-rw---- 1 root render 234, 0 Sep  2 15:45 /dev/kfd\n")) == ["/dev/kfd"]
