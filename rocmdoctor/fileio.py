"""Replace a file in one rename, so readers (Prometheus' textfile collector,
ssh reading known_hosts) see the old file or the new one, never a part."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: str | bytes, mode: int = 0o644) -> None:
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def keep_newest(directory: Path, count: int, pattern: str = "*.pickle") -> None:
    """Bound a cache dir: its keys change with every edit (file mtimes, a fresh clone's paths), and
    unpruned the catalog cache alone grew past 500 MB on a machine that ran many checkouts."""
    def mtime(p: Path) -> float:
        try:
            return p.stat().st_mtime
        except OSError:
            return 0.0

    for old in sorted(directory.glob(pattern), key=mtime, reverse=True)[count:]:
        try:
            old.unlink()
        except OSError:
            pass
