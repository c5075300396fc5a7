"""Where rocmdoctor keeps its files, following the XDG base directory spec."""

from __future__ import annotations

import os
from pathlib import Path


def _xdg(var: str, default: str) -> Path:
    value = os.environ.get(var)
    return Path(value) if value else Path.home() / default


def data_dir() -> Path:
    return _xdg("XDG_DATA_HOME", ".local/share") / "rocmdoctor"


def state_dir() -> Path:
    return _xdg("XDG_STATE_HOME", ".local/state") / "rocmdoctor"


def cache_dir() -> Path:
    return _xdg("XDG_CACHE_HOME", ".cache") / "rocmdoctor"
