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
    for sig in sorted((ROOT / "signatures").glob("*.yaml")):
        assert f"rocmdoctor/signatures/{sig.name}" in names
    source_files = {p.relative_to(ROOT).as_posix() for p in (ROOT / "rocmdoctor").rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts}
    missing = sorted(source_files - names)
    assert not missing, f"not in the wheel: {missing[:10]}"
    assert len([n for n in names if n.startswith("rocmdoctor/runbooks/")]) >= 5


def test_installed_wheel_lists_runbooks_and_runs_the_demo(tmp_path: Path) -> None:
    """`pip install .` then the README's demo, from outside the checkout: the YAML
    files are found inside the installed package, not in the source tree."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "w"), str(ROOT)], check=True, timeout=300)
    (wheel,) = (tmp_path / "w").glob("rocmdoctor-*.whl")
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                    str(wheel)], check=True, timeout=300)
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    run = lambda *args: subprocess.run([sys.executable, "-m", "rocmdoctor", *args], cwd=tmp_path, env=env,  # noqa: E731
                                       capture_output=True, text=True, timeout=120)
    listed = run("runbooks", "list")
    assert listed.returncode == 0, listed.stderr
    ids = [line.split()[0] for line in listed.stdout.splitlines()]
    assert ids == sorted(["container-mount-failure", "gpu-hardware-fault", "gpu-not-visible", "gpu-oom", "gpu-slow",
                          "kernel-driver-mismatch", "thermal-throttling", "wrong-results"])
    demo = run("triage", "demo:amdgpu-not-loaded", "--runbook", "gpu-not-visible")
    assert demo.returncode == 2, demo.stderr
    assert "amdgpu is not loaded" in demo.stdout and "$ modprobe amdgpu" in demo.stdout
    explained = run("explain", "RuntimeError: HIP error: hipErrorNoDevice")
    assert explained.returncode == 0 and "gpu-not-visible / user-not-in-render-group" in explained.stdout


def _bash_blocks(markdown: str) -> list[str]:
    blocks, current = [], None
    for line in markdown.splitlines():
        if current is None and line.strip() == "```bash":
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append("\n".join(current).strip())
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def test_readme_opens_with_the_demo_and_the_test_command_ci_runs() -> None:
    """Issue 8: the README's first two commands are the demo and the whole suite, and
    .ci/run runs exactly that test command (so CI and a newcomer do the same thing)."""
    demo, tests = _bash_blocks((ROOT / "README.md").read_text())[:2]
    assert "rocmdoctor triage demo:" in demo and "python3 -m venv" in demo
    assert tests == "bash tests/run.sh"
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert tests in ci
    script = (ROOT / "tests" / "run.sh").read_text()
    assert "python3 -m venv" in script and "'.[test]'" in script
    # the parallel run, then the wall-clock-bounded tests alone; "no tests collected" in both fails the run
    assert '-n "$workers" -m "not serial"' in script and '-m serial "$@"' in script
    assert '[ "$parallel" = 5 ] && [ "$serial" = 5 ]' in script
