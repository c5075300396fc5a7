"""The CLI as a user runs it, for tests that must go through `python -m rocmdoctor`: one place that
runs it (never a traceback on stderr) and turns a demo node into the bundle `capture` writes."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

# no incident journal from test runs
ENV = {**os.environ, "ROCMDOCTOR_INCIDENTS_DIR": os.devnull + "/no-journal"}


def run_cli(*args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", *args], capture_output=True, text=True,
                          timeout=timeout, env=ENV)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def captured_demo(demo: str, directory: Path) -> Path:
    """`rocmdoctor capture demo:DEMO` unpacked under `directory`; returns the bundle's root."""
    out = directory / f"{demo}.tar.gz"
    cap = run_cli("capture", f"demo:{demo}", "-o", str(out))
    assert cap.returncode == 0, cap.stderr
    with tarfile.open(out) as tar:
        tar.extractall(directory / demo, filter="data")
    (root,) = [p for p in (directory / demo).iterdir() if p.is_dir()]
    return root
