"""`ldconfig -p`: real lines (flox/flox cli/tests/cuda/ldconfig-mock-absent.sh, ubuntu:24.04 on
aarch64, verbatim) and the probe's own no-tool marker."""

from __future__ import annotations

import pytest

from rocmdoctor.parsers import ParseError
from rocmdoctor.parsers.ldconfig import parse_ldconfig_cache

FLOX = """82 libs found in cache `/etc/ld.so.cache'
\tlibzstd.so.1 (libc6,AArch64) => /lib/aarch64-linux-gnu/libzstd.so.1
\tlibz.so.1 (libc6,AArch64) => /lib/aarch64-linux-gnu/libz.so.1
\tlibxxhash.so.0 (libc6,AArch64) => /lib/aarch64-linux-gnu/libxxhash.so.0
"""


def test_entries_in_cache_order_with_their_arch() -> None:
    out = parse_ldconfig_cache(FLOX)
    assert out["available"] is True
    assert [(e["soname"], e["arch"], e["path"]) for e in out["entries"]] == [
        ("libzstd.so.1", "AArch64", "/lib/aarch64-linux-gnu/libzstd.so.1"),
        ("libz.so.1", "AArch64", "/lib/aarch64-linux-gnu/libz.so.1"),
        ("libxxhash.so.0", "AArch64", "/lib/aarch64-linux-gnu/libxxhash.so.0"),
    ]
    assert out["entries"][0]["line"] == "libzstd.so.1 (libc6,AArch64) => /lib/aarch64-linux-gnu/libzstd.so.1"


def test_grepped_lines_without_the_header_and_the_no_tool_marker() -> None:
    body = "".join(FLOX.splitlines(keepends=True)[1:])
    assert len(parse_ldconfig_cache(body)["entries"]) == 3
    assert parse_ldconfig_cache("== no ldconfig\n") == {"available": False, "entries": []}
    assert parse_ldconfig_cache("") == {"available": True, "entries": []}


def test_a_line_that_is_no_entry_is_an_error() -> None:
    with pytest.raises(ParseError, match="line 2"):
        parse_ldconfig_cache(FLOX.splitlines()[0] + "\nldconfig: Can't open cache file\n")
