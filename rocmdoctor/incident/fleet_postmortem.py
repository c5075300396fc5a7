"""A postmortem draft for a fleet incident, from the fleet view's journal (fleet-journal.jsonl).

Same sections as a single-node draft (templates/postmortem.md.j2): what the sweep found, the
cohorts with the attribute that sets each apart (the likely trigger), what the operator decided
(drains, by whom, the outcome per host), and the parts only a human can write, marked TODO.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


def _records(journal: Path) -> list[dict[str, Any]]:
    out = []
    for line in journal.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue     # a torn last line (crash mid-write) loses that record only
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _utc(ts: Any) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(float(ts)))
    except (TypeError, ValueError):
        return "?"


def render_fleet_postmortem(journal: Path) -> str:
    recs = _records(journal)
    finished = next((r for r in reversed(recs) if r.get("kind") == "sweep_finished"), {})
    cohorts = finished.get("cohorts", [])
    counts = finished.get("counts", {})
    title = cohorts[0]["conclusion"] if cohorts else "fleet sweep without a failing cohort"
    lines = [f"# Postmortem draft: {title}", "", f"Journal: `{journal}`", "", "## Summary", ""]
    lines.append(f"A sweep of {sum(counts.values()) if counts else '?'} host(s) found "
                 + (", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing") + ".")
    for c in cohorts:
        lines.append(f"- **{c['runbook']}/{c['diagnosis']}** on {c['size']} host(s) `{c['hosts']}`: {c['conclusion']}.")
    lines += ["", "## Impact", "", "TODO: jobs and users affected, for how long.", "", "## Timeline (UTC)", ""]
    for r in recs:
        what = {"sweep_started": "sweep started", "sweep_finished": "sweep finished",
                "drain_approved": f"drain of {len(r.get('hosts', []))} host(s) approved by {r.get('by', '?')}: {r.get('reason', '')}",
                "drain_declined": f"drain of {r.get('cohort', '?')} declined by {r.get('by', '?')}",
                "drain_done": "drain outcome: " + ", ".join(f"{h} {o}" for h, o in (r.get("outcome") or {}).items())}.get(
            str(r.get("kind")), str(r.get("kind")))
        lines.append(f"- {_utc(r.get('ts'))} {what}")
    lines += ["", "## Root cause and contributing factors", ""]
    for c in cohorts:
        lines.append(f"### {c['runbook']}/{c['diagnosis']} ({c['size']} host(s))")
        lines += [f"- {f['text']}" for f in c.get("findings", [])] or ["- no fingerprint attribute separates these hosts"]
        lines.append("")
    lines += ["TODO: confirm the trigger (change ticket, rollout log) and why it reached these hosts.", "",
              "## Action items", "", "- TODO: roll back or fix the trigger; verify with `rocmdoctor sweep ... --since last`.",
              "- TODO: keep the trigger from reaching more nodes (pin, canary).", ""]
    return "\n".join(lines)


def write_fleet_postmortem(journal: Path) -> Path:
    out = journal.parent / "postmortem.md"
    out.write_text(render_fleet_postmortem(journal), encoding="utf-8")
    return out
