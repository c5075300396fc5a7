"""Sweep-to-sweep changes: hosts newly failing, recovered, and what changed on them (the trigger).

Every sweep's JSON document (schema rocmdoctor.sweep/1) is kept under
$XDG_STATE_HOME/rocmdoctor/sweeps/ (the last KEEP); `sweep --since last` compares with the newest
one, `--baseline FILE` with any saved document (`--format json -o FILE` writes one). Drift is a
fingerprint attribute that changed on a host between the two sweeps: after a rollout, the
kernel or ROCm version that moved on exactly the hosts that started failing.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocmdoctor.errors import RocmdoctorError
from rocmdoctor.paths import state_dir

KEEP = 50
_BAD = ("fail", "unknown")


@dataclass(frozen=True)
class HostChange:
    host: str
    before: str
    after: str
    diagnosis: str = ""
    drift: tuple[tuple[str, Any, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.host, "before": self.before, "after": self.after, "diagnosis": self.diagnosis,
                "drift": [{"attribute": a, "before": b, "after": c} for a, b, c in self.drift]}


@dataclass(frozen=True)
class Changes:
    baseline: str                      # where the previous sweep came from
    baseline_started_at: str
    newly_failing: tuple[HostChange, ...] = ()
    recovered: tuple[HostChange, ...] = ()
    drifted: tuple[HostChange, ...] = ()   # hosts whose fingerprint changed, whatever their state
    new_hosts: tuple[str, ...] = ()
    gone_hosts: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "baseline_started_at": self.baseline_started_at,
                "newly_failing": [c.to_dict() for c in self.newly_failing],
                "recovered": [c.to_dict() for c in self.recovered],
                "drifted": [c.to_dict() for c in self.drifted],
                "new_hosts": list(self.new_hosts), "gone_hosts": list(self.gone_hosts), "notes": list(self.notes)}


class SweepHistory:
    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else state_dir() / "sweeps"

    def files(self) -> list[Path]:
        return sorted(self.directory.glob("sweep-*.json")) if self.directory.is_dir() else []

    def last(self) -> Path | None:
        files = self.files()
        return files[-1] if files else None

    def save(self, doc: dict[str, Any]) -> Path | None:
        """Write the sweep document (atomically) and prune to the newest KEEP; None if the dir is read-only."""
        stamp = re.sub(r"[^0-9A-Za-z]", "", str(doc.get("started_at", ""))) or "unknown"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".sweep-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f)
                f.flush()
                os.fsync(f.fileno())
            path = self.directory / f"sweep-{stamp}-{os.getpid()}.json"
            os.replace(tmp, path)
            for old in self.files()[:-KEEP]:
                old.unlink(missing_ok=True)
            return path
        except OSError:
            return None


def load_baseline(ref: str, history: SweepHistory | None = None) -> tuple[str, dict[str, Any]]:
    """`last` (the newest saved sweep) or a FILE holding a sweep JSON document."""
    history = history or SweepHistory()
    if ref == "last":
        path = history.last()
        if path is None:
            raise RocmdoctorError("--since last: no earlier sweep is saved yet",
                                  f"sweeps are kept in {history.directory}; run a sweep first, or give --baseline FILE")
    else:
        path = Path(ref)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RocmdoctorError(f"baseline {path}: cannot read a sweep document ({exc})",
                              "give a file written by `rocmdoctor sweep --format json -o FILE`") from None
    if not isinstance(doc, dict) or doc.get("schema") != "rocmdoctor.sweep/1" or not isinstance(doc.get("hosts"), list):
        raise RocmdoctorError(f"baseline {path}: not a rocmdoctor.sweep/1 document",
                              "give a file written by `rocmdoctor sweep --format json -o FILE`")
    return str(path), doc


def compare(baseline: str, before: dict[str, Any], now: dict[str, Any]) -> Changes:
    """Two sweep documents (rocmdoctor.sweep/1) -> what changed."""
    old = {h["host"]: h for h in before.get("hosts", []) if isinstance(h, dict) and "host" in h}
    new = {h["host"]: h for h in now.get("hosts", [])}
    failing, recovered, drifted = [], [], []
    for host, h in new.items():
        p = old.get(host)
        if p is None:
            continue
        fp0, fp1 = p.get("fingerprint") or {}, h.get("fingerprint") or {}
        drift = tuple((k, fp0.get(k), fp1.get(k)) for k in sorted(set(fp0) | set(fp1)) if fp0.get(k) != fp1.get(k))
        diag = next((f"{d['runbook']}/{d['id']}" for d in h.get("diagnoses", [])), "")
        change = HostChange(host, p.get("state", "?"), h.get("state", "?"), diag, drift)
        if h.get("state") in _BAD and p.get("state") not in _BAD:
            failing.append(change)
        elif p.get("state") in _BAD and h.get("state") == "pass":
            recovered.append(change)
        if drift:
            drifted.append(change)
    notes = []
    if set(before.get("runbooks", [])) != set(now.get("runbooks", [])):
        notes.append(f"the runbooks differ: before {sorted(before.get('runbooks', []))}, now {sorted(now.get('runbooks', []))}")
    return Changes(baseline, str(before.get("started_at", "?")), tuple(failing), tuple(recovered), tuple(drifted),
                   tuple(sorted(set(new) - set(old))), tuple(sorted(set(old) - set(new))), tuple(notes))


def render_changes(c: Changes) -> str:
    from collections import Counter

    from rocmdoctor.fleet.hostlist import fold

    lines = ["", f"Since {c.baseline_started_at} ({c.baseline}):"]
    if c.newly_failing:
        lines.append(f"  newly failing: {len(c.newly_failing)} host(s) {fold(x.host for x in c.newly_failing)}")
    if c.recovered:
        lines.append(f"  recovered: {len(c.recovered)} host(s) {fold(x.host for x in c.recovered)}")
    if c.drifted:
        from rocmdoctor.fleet.cohorts import ATTRIBUTES

        moves = Counter((a, str(b), str(d)) for x in c.drifted for a, b, d in x.drift)
        order = list(ATTRIBUTES)
        # a value that moved (kernel 6.8 -> 5.15) before one that appeared or vanished (a consequence:
        # no driver, no version), then the usual trigger order (kernel, ROCm, amdgpu, ...)
        ranked = sorted(moves.items(), key=lambda kv: ("None" in kv[0][1:], order.index(kv[0][0]) if kv[0][0] in order
                                                         else len(order), -kv[1]))
        for (attr, b, d), n in ranked[:5]:
            hosts = [x.host for x in c.drifted if any(t == (attr, b, d) for t in ((a, str(bb), str(dd)) for a, bb, dd in x.drift))]
            lines.append(f"  drift: {attr} {b} -> {d} on {n} host(s) {fold(hosts)}")
    if c.new_hosts:
        lines.append(f"  new: {fold(c.new_hosts)}")
    if c.gone_hosts:
        lines.append(f"  gone: {fold(c.gone_hosts)}")
    if len(lines) == 2:
        lines.append("  no host changed state or fingerprint")
    lines.extend(f"  note: {n}" for n in c.notes)
    return "\n".join(lines)
