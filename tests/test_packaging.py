"""The wheel carries everything a fresh install needs: runbooks, checks, data,
templates, the TUI, the simulated demo nodes and their real-output fixtures."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contents(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(ROOT)], check=True, timeout=300)
    (wheel,) = tmp_path.glob("rocmdoctor-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for runbook in sorted((ROOT / "runbooks").glob("*.yaml")):
        assert f"rocmdoctor/runbooks/{runbook.name}" in names
    for check in sorted((ROOT / "checks").glob("*.yaml")):
        assert f"rocmdoctor/checks/{check.name}" in names
    source_files = {p.relative_to(ROOT).as_posix() for p in (ROOT / "rocmdoctor").rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts}
    missing = sorted(source_files - names)
    assert not missing, f"not in the wheel: {missing[:10]}"
    assert len([n for n in names if n.startswith("rocmdoctor/runbooks/")]) >= 5
