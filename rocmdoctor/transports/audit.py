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
    """One JSON line per command. The line goes to the file in one O_APPEND write
    (atomic, so threads never interleave) and is fsynced; the fsync runs outside
    the lock, so 64 sweep threads do not queue behind each other's disk flushes."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_audit_path()
        self._fd: int | None = None

    def _open(self) -> int:
        with _lock:
            if self._fd is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            return self._fd

    def __del__(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass

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
        data = (json.dumps(entry, sort_keys=True) + "\n").encode()
        fd = self._open()
        os.write(fd, data)
        os.fsync(fd)
