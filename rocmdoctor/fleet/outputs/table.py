"""The summary table: one row per host, one column per runbook, worst host first.

Plain text (no colour, fixed columns) so it reads the same in a terminal, a
cron mail and a Slurm log; state symbols keep it readable in monochrome.
"""

from __future__ import annotations

from typing import Any

from rocmdoctor.fleet.hostlist import fold
from rocmdoctor.status import State

MESSAGE_WIDTH = 100


def _cell(state: State | None) -> str:
    return f"{state.symbol} {state.value}" if state is not None else "-"


def render_table(sweep: Any) -> str:
    runbooks = list(sweep.runbooks) or sorted({rb for h in sweep.hosts for rb, _ in h.runbooks})
    header = ["HOST", "STATE", *runbooks, "REASON / FINDING"]
    rows = []
    for h in sweep.worst_first():
        per = dict(h.runbooks)
        finding = " ".join((f"{h.reason}: {h.message}" if h.reason else h.message).split())  # one line per host
        if len(finding) > MESSAGE_WIDTH:
            finding = finding[:MESSAGE_WIDTH - 1] + "…"
        rows.append([h.host, _cell(h.state), *(_cell(per.get(rb)) for rb in runbooks), finding])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + "  " + r[-1] for r in [header, *rows]]
    counts = sweep.counts()
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    lines.append("")
    lines.append(f"{len(sweep.hosts)} host(s): {summary or 'none'} in {sweep.duration_s:.1f}s "
                 f"(fanout {sweep.fanout}, per-host timeout {sweep.timeout:g}s)")
    for state in (State.FAIL, State.WARN, State.UNKNOWN):
        names = [h.host for h in sweep.hosts if h.state == state]
        if names:
            lines.append(f"{state.value}: {fold(names)}")
    reasons = sweep.reasons()
    if reasons:
        lines.append("unreachable: " + ", ".join(f"{n} {r}" for r, n in reasons.items()))
    from rocmdoctor.fleet.cohorts import render_cohorts

    cohorts = render_cohorts(sweep.cohorts)
    if cohorts:
        lines.extend(cohorts.splitlines())
    if sweep.changes is not None:
        from rocmdoctor.fleet.changes import render_changes

        lines.extend(render_changes(sweep.changes).splitlines())
    if sweep.gate is not None:
        from rocmdoctor.fleet.gate import render_gate

        lines.extend(render_gate(sweep.gate).splitlines())
    return "\n".join(line.rstrip() for line in lines) + "\n"
