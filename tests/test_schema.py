"""Malformed checks and runbooks: one clear message with file:line, exit 2, no traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rocmdoctor.catalog.loader import validate_paths
from rocmdoctor.cli.main import full_app

app = full_app()

MALFORMED = sorted((Path(__file__).parent / "data" / "malformed").glob("*.yaml"))


def _expectation(path: Path) -> tuple[int, str]:
    m = re.match(r"# expect: (\d+) \| (.*)", path.read_text().splitlines()[0])
    assert m, f"{path} lacks its '# expect: LINE | message' header"
    return int(m.group(1)), m.group(2).strip()


def test_there_are_at_least_twenty_cases() -> None:
    assert len(MALFORMED) >= 20


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_validate_names_file_line_and_problem(path: Path) -> None:
    line, message = _expectation(path)
    errors = validate_paths([path])
    assert len(errors) == 1
    text = errors[0].message
    assert text.startswith(f"{path}:{line}: "), text
    assert message in text


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_cli_validate_exits_2_with_one_line(path: Path) -> None:
    line, message = _expectation(path)
    result = CliRunner().invoke(app, ["runbooks", "validate", str(path)])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    assert f"{path}:{line}: " in lines[0] and message in lines[0]
    assert "Traceback" not in result.output


def test_a_malformed_runbook_on_the_path_stops_triage_cleanly(tmp_path: Path) -> None:
    bad = MALFORMED[12]  # a runbook naming an unknown check
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / bad.name).write_text(bad.read_text())
    result = CliRunner().invoke(app, ["triage", "local", "--path", str(tmp_path)])
    assert result.exit_code == 2
    assert f"{tmp_path / 'runbooks' / bad.name}:" in result.output
    assert "Traceback" not in result.output


def test_builtin_runbooks_and_checks_validate() -> None:
    result = CliRunner().invoke(app, ["runbooks", "validate"])
    assert result.exit_code == 0, result.output


def test_validate_refuses_a_directory_with_nothing_to_validate(tmp_path: Path) -> None:
    """A mistyped directory must not print "ok": no YAML file in it or its checks/, runbooks/, signatures/."""
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / "notes.txt").write_text("not yaml\n")
    result = CliRunner().invoke(app, ["runbooks", "validate", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip() == (f"{tmp_path}: no *.yaml file here or in its checks/, runbooks/ or signatures/"
                                     "  (hint: point at the directory that holds the YAML files)")
    (tmp_path / "runbooks" / "mine.yaml").write_text((Path(__file__).parents[1] / "runbooks" / "gpu-oom.yaml").read_text())
    assert CliRunner().invoke(app, ["runbooks", "validate", str(tmp_path)]).exit_code == 0
