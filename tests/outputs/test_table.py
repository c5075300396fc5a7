"""The summary table: host x runbook, worst host first, folded host lists per state."""

from __future__ import annotations

from rocmdoctor.fleet.outputs.table import render_table


def test_table_worst_first_with_summary(sweep) -> None:
    lines = render_table(sweep).splitlines()
    assert lines[0].split() == ["HOST", "STATE", "gpu-not-visible", "gpu-oom", "REASON", "/", "FINDING"]
    hosts = [ln.split()[0] for ln in lines[1:7]]
    assert hosts == ["node002", "node003", "node004", "node006", 'we"ird\\host', "node001"]
    assert "host-key-changed: node004: HOST KEY CHANGED" in lines[3]
    assert "6 host(s): 1 pass, 1 warn, 1 fail, 3 unknown in 12.5s (fanout 64, per-host timeout 30s)" in lines
    assert "unknown: node[004,006],we\"ird\\host" in lines
    assert "unreachable: 1 host-key-changed, 1 timeout" in lines
    assert all(len(ln) < 220 for ln in lines)  # long findings are cut
