"""Append-only audit log of every command sent to a node.

One JSON object per line, flushed and fsynced per command, so an interrupted
run still leaves a complete record of what it did.
"""

from __future__ import annotations

import getpass
import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path

from rocmdoctor.paths import state_dir

_lock = threading.Lock()


def default_audit_path() -> Path:
    override = os.environ.get("ROCMDOCTOR_AUDIT_LOG")
    return Path(override) if override else state_dir() / "audit.log"


def local_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())


class AuditLog:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_audit_path()

    def record(
        self,
        *,
        host: str,
        command: str,
        exit_status: int | None,
        duration_ms: int,
        dry_run: bool = False,
        note: str = "",
    ) -> None:
        entry = {
            "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "user": local_user(),
            "host": host,
            "command": command,
            "exit_status": exit_status,
            "duration_ms": duration_ms,
            "dry_run": dry_run,
        }
        if note:
            entry["note"] = note
        line = json.dumps(entry, sort_keys=True) + "\n"
        with _lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
