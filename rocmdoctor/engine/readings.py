"""The last readings of counters, per host, kept between runs.

A correctable-ECC count or a PCIe replay count means little alone; that it rose
since the last sweep is the signal (DCGM judges replays per minute, not their
total). Checks name the outputs to keep (`remember:`); after a triage the values
are written here and the next triage of the same host sees them as `previous`.
One small JSON file per host under $XDG_STATE_HOME/rocmdoctor/readings, replaced
atomically; an unreadable or foreign file counts as "no previous reading" (the
check then judges the counter alone) and is overwritten by the next run.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from rocmdoctor.paths import state_dir

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


class ReadingStore:
    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else state_dir() / "readings"

    def _path(self, host: str) -> Path:
        name = _SAFE.sub("_", host) or "_"
        return self.directory / f"{name}.json"

    def load(self, host: str) -> dict[str, dict[str, Any]]:
        """check id -> {output name: value, ..., "taken": unix time of that reading}."""
        try:
            doc = json.loads(self._path(host).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(doc, dict) or doc.get("host") != host or not isinstance(doc.get("checks"), dict):
            return {}
        taken = doc.get("taken")
        return {cid: {**values, "taken": taken} for cid, values in doc["checks"].items() if isinstance(values, dict)}

    def save(self, host: str, checks: dict[str, dict[str, Any]]) -> None:
        """Replace the host's readings; an empty `checks` (nothing judged) keeps the old ones."""
        if not checks:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".readings-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"host": host, "taken": round(time.time(), 3), "checks": checks}, f, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self._path(host))
        except OSError:
            pass  # a read-only state dir must not fail the triage; the next run compares with nothing


def default_store() -> ReadingStore:
    return ReadingStore()
