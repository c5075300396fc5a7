"""Prometheus textfile output: valid exposition format, escaping, documented names."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.fleet.outputs import write_atomic
from rocmdoctor.fleet.outputs.prometheus import escape_label, render_prometheus
from rocmdoctor.testing.promtext import parse

def test_prometheus_output_is_valid_and_complete(sweep) -> None:
    fams = parse(render_prometheus(sweep, now=1700000000.0))
    assert set(fams) == {f"rocmdoctor_{n}" for n in (
        "host_state", "host_up", "host_duration_seconds", "host_round_trips", "runbook_state", "check_state",
        "sweep_hosts", "sweep_unreachable_hosts", "sweep_duration_seconds", "sweep_exit_status",
        "sweep_last_run_timestamp_seconds")}
    state = {s[0]["host"]: s[1] for s in fams["rocmdoctor_host_state"]["samples"]}
    assert state == {"node001": 0, "node002": 2, "node003": 1, "node004": 3, 'we"ird\\host': 3, "node006": 3}
    up = {s[0]["host"]: (s[0]["reason"], s[1]) for s in fams["rocmdoctor_host_up"]["samples"]}
    assert up["node004"] == ("host-key-changed", 0) and up["node001"] == ("", 1)
    checks = fams["rocmdoctor_check_state"]["samples"]
    assert ({"host": "node002", "runbook": "gpu-not-visible", "step": "module", "check": "check.module"}, 2.0) in checks
    assert not any(s[0]["step"] == "module" and s[0]["host"] == "node001" for s in checks)  # skipped: omitted
    assert {s[0]["state"]: s[1] for s in fams["rocmdoctor_sweep_hosts"]["samples"]} == \
        {"pass": 1, "warn": 1, "fail": 1, "unknown": 3}
    assert {s[0]["reason"]: s[1] for s in fams["rocmdoctor_sweep_unreachable_hosts"]["samples"]} == \
        {"host-key-changed": 1, "timeout": 1}
    assert fams["rocmdoctor_sweep_duration_seconds"]["samples"] == [({}, 12.5)]
    assert fams["rocmdoctor_sweep_exit_status"]["samples"] == [({}, 2.0)]
    assert fams["rocmdoctor_sweep_last_run_timestamp_seconds"]["samples"] == [({}, 1700000000.0)]


def test_label_escaping() -> None:
    assert escape_label('a"b\\c\nd') == 'a\\"b\\\\c\\nd'


def test_write_atomic_replaces_in_one_rename(tmp_path: Path, sweep) -> None:
    target = tmp_path / "rocmdoctor.prom"
    target.write_text("old\n")
    inode = target.stat().st_ino
    write_atomic(target, render_prometheus(sweep))
    assert target.stat().st_ino != inode            # a new file renamed over the old one
    assert parse(target.read_text())
    assert [p.name for p in tmp_path.iterdir()] == ["rocmdoctor.prom"]  # no temp file left
    assert oct(target.stat().st_mode & 0o777) == "0o644"  # node_exporter runs as another user
