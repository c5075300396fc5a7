"""The per-host readings store: atomic, tolerant of a damaged file, never crossing hosts; (`remember:`
naming an unknown output is refused at file:line: tests/data/malformed/27-remember-unknown-output.yaml)."""

from __future__ import annotations

import json
from pathlib import Path

from rocmdoctor.engine.readings import ReadingStore


def test_round_trip_and_taken(tmp_path: Path) -> None:
    store = ReadingStore(tmp_path)
    assert store.load("gpu01") == {}
    store.save("gpu01", {"hw.ras_errors": {"ce_counts": {"0000:05:00.0 umc": 3}}})
    got = store.load("gpu01")["hw.ras_errors"]
    assert got["ce_counts"] == {"0000:05:00.0 umc": 3} and isinstance(got["taken"], float)
    assert [p.name for p in tmp_path.iterdir()] == ["gpu01.json"]   # no temp file left behind


def test_damaged_or_foreign_file_is_no_reading(tmp_path: Path) -> None:
    store = ReadingStore(tmp_path)
    (tmp_path / "gpu01.json").write_text("{not json")
    assert store.load("gpu01") == {}
    (tmp_path / "gpu02.json").write_text(json.dumps({"host": "other", "checks": {"x": {"a": 1}}}))
    assert store.load("gpu02") == {}
    store.save("gpu01", {"x": {"a": 1}})           # the next run replaces the damaged file
    assert store.load("gpu01")["x"]["a"] == 1


def test_host_names_cannot_escape_the_directory(tmp_path: Path) -> None:
    store = ReadingStore(tmp_path / "r")
    store.save("../../etc/passwd", {"x": {"a": 1}})
    assert [p.name for p in (tmp_path / "r").iterdir()] == [".._.._etc_passwd.json"]
    assert store.load("../../etc/passwd")["x"]["a"] == 1
