"""The postmortem draft: a golden file for a fixed journal, the facts it must
name, site templates and their errors, and the CLI commands around it."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rocmdoctor.errors import RocmdoctorError
from rocmdoctor.incident.journal import read_journal
from rocmdoctor.incident.postmortem import code, render_postmortem, write_postmortem
from rocmdoctor.incident.postmortem_context import build_context

DATA = Path(__file__).parent / "data" / "postmortem"
JOURNAL = DATA / "20250314-024107-a3f9" / "journal.jsonl"


def _render() -> str:
    return render_postmortem(read_journal(JOURNAL)).replace(str(JOURNAL), "<journal>")


def test_golden_postmortem_for_a_fixed_journal() -> None:
    text = _render()
    golden = DATA / "expected.md"
    if os.environ.get("ROCMDOCTOR_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_postmortem_names_cause_evidence_fix_and_times() -> None:
    text = _render()
    assert text.startswith("# Postmortem draft: gpu-07: The amdgpu kernel module is not loaded")
    assert "| Time window (UTC) | 2025-03-14 02:41:07 to 2025-03-14 02:44:14 (3 min 7 s) |" in text
    assert "  - `cat /proc/modules: no line starting with 'amdgpu '`" in text      # root-cause evidence
    assert "- Command (medium risk): `modprobe amdgpu`" in text
    assert "- Approved by oncall at 2025-03-14 02:42:11 UTC" in text
    assert "- Ran at 2025-03-14 02:42:11 UTC: exit status 0 after" in text
    assert ("- Verified by `incident_test.module_loaded` at 2025-03-14 02:42:11 UTC: ✔ PASS amdgpu is loaded: "
            "**worked**") in text
    assert "| 2025-03-14 02:41:07 | gpu-07 | Note by oncall: Slurm drained gpu-07: jobs failed with hipErrorNoDevice |" in text
    assert "- GPUs on gpu-07: 8 AMD GPU(s) on the PCI bus (0000:05:00.0," in text
    assert "Time from detection to a verified fix: 1 min 4 s." in text
    assert "| Find out why amdgpu did not load at boot (blacklist, initramfs, DKMS build)." in text
    for section in ("## Summary", "## Impact", "## Detection", "## Timeline (UTC)",
                    "## Root cause and contributing factors", "## What was done", "## Action items",
                    "## Lessons learned", "## Supporting information"):
        assert text.count(section) == 1, section
    assert "- Customer impact: TODO(human)" in text
    assert "- What went well: TODO(human)" in text


def test_context_is_plain_data_with_the_facts() -> None:
    ctx = build_context(read_journal(JOURNAL))
    assert ctx["initial_state"]["value"] == "fail" and ctx["final_state"]["value"] == "pass"
    assert ctx["root_cause"]["diagnosis_id"] == "module-not-loaded"
    assert ctx["root_cause"]["fixed_by"] == {"title": "Load the amdgpu kernel module", "command": "modprobe amdgpu",
                                             "time": "2025-03-14T02:42:11.950+00:00"}
    assert [a["verify"]["fixed"] for a in ctx["actions"]] == [True]
    assert [n["text"] for n in ctx["notes"]] == ["Slurm drained gpu-07: jobs failed with hipErrorNoDevice",
                                                 "GPU jobs run again on gpu-07; node resumed in Slurm"]
    assert ctx["gpus"][0]["count"] == 8


def test_markdown_helpers_survive_backticks_and_pipes() -> None:
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    from rocmdoctor.incident.postmortem import block, cell

    assert cell("a | b\nc") == "a \\| b c"
    assert block("x\n```\ny").startswith("````text\n")


def test_site_template(tmp_path: Path) -> None:
    tpl = tmp_path / "site.md.j2"
    tpl.write_text("# {{ incident.id }} on {{ incident.hosts | join(',') }}\n"
                   "cause: {{ root_cause.cause }}\nfix: {{ actions[0].command | code }}\n{{ TODO }}\n")
    text = render_postmortem(read_journal(JOURNAL), tpl)
    assert text == ("# 20250314-024107-a3f9 on gpu-07\ncause: The amdgpu kernel module is not loaded, so no GPU "
                    "is visible to ROCm.\nfix: `modprobe amdgpu`\nTODO(human)\n")


def test_template_typo_is_an_error_with_the_line(tmp_path: Path) -> None:
    tpl = tmp_path / "bad.md.j2"
    tpl.write_text("# ok\n\n{{ incident.nmae }}\n")
    with pytest.raises(RocmdoctorError) as exc:
        render_postmortem(read_journal(JOURNAL), tpl)
    assert exc.value.message.startswith(f"{tpl}:3: ") and "nmae" in exc.value.message
    tpl.write_text("# ok\n{% for x in %}\n")
    with pytest.raises(RocmdoctorError, match=r"bad.md.j2:2: template syntax error"):
        render_postmortem(read_journal(JOURNAL), tpl)
    with pytest.raises(RocmdoctorError, match="no such file"):
        render_postmortem(read_journal(JOURNAL), tmp_path / "missing.j2")


def test_write_postmortem_defaults_beside_the_journal(tmp_path: Path) -> None:
    inc = tmp_path / "20250314-024107-a3f9"
    shutil.copytree(JOURNAL.parent, inc)
    path = write_postmortem(read_journal(inc / "journal.jsonl"))
    assert path == inc / "postmortem.md" and "modprobe amdgpu" in path.read_text()


# -- CLI ---------------------------------------------------------------------

@pytest.fixture
def incidents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = tmp_path / "incidents"
    shutil.copytree(JOURNAL.parent, base / JOURNAL.parent.name)
    monkeypatch.setenv("ROCMDOCTOR_INCIDENTS_DIR", str(base))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("COLUMNS", "200")
    return base


def _cli(*args: str):  # type: ignore[no-untyped-def]
    from rocmdoctor.cli.main import full_app

    app = full_app()

    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_cli_postmortem_list_show_note(incidents: Path, tmp_path: Path) -> None:
    r = _cli("incidents", "list")
    assert r.exit_code == 0
    assert re.search(r"20250314-024107-a3f9\s+2025-03-14 02:41:07\s+gpu-07\s+✔ pass\s+triage\s+The amdgpu", r.stdout)
    r = _cli("incidents", "note", "2025", "ticket INC-4711 opened")
    assert r.exit_code == 0 and "note added to incident 20250314-024107-a3f9" in r.stdout
    r = _cli("incidents", "show", "latest")
    assert r.exit_code == 0
    assert "Ran `modprobe amdgpu`: exit 0" in r.stdout and "Note by" in r.stdout and "INC-4711" in r.stdout
    out = tmp_path / "pm.md"
    r = _cli("postmortem", "20250314", "-o", str(out))
    assert r.exit_code == 0 and "INC-4711" in out.read_text()
    r = _cli("postmortem", "latest")
    assert r.exit_code == 0 and r.stdout.startswith("# Postmortem draft: gpu-07")


def test_cli_errors_are_one_line(incidents: Path, tmp_path: Path) -> None:
    r = _cli("postmortem", "nope")
    assert r.exit_code == 2
    assert f"rocmdoctor: error: no incident 'nope' in {incidents}" in r.stderr
    bad = tmp_path / "t.j2"
    bad.write_text("{{ nope }}")
    r = _cli("postmortem", "latest", "--template", str(bad))
    assert r.exit_code == 2 and f"rocmdoctor: error: {bad}:1: 'nope' is undefined" in r.stderr
    r = _cli("incidents", "note", "latest", "  ")
    assert r.exit_code == 2 and "the note is empty" in r.stderr


def test_triage_opens_an_incident_and_names_it_last(tmp_path: Path, incidents: Path) -> None:
    from rocmdoctor.testing.incident import CATALOG, amdgpu_unloaded_node

    root = amdgpu_unloaded_node(tmp_path / "nodes")
    r = _cli("triage", "local", "--rootfs", str(root), "--path", str(CATALOG), "-r", "incident_test_gpu")
    assert r.exit_code == 2
    last = r.stdout.rstrip("\n").splitlines()[-1]
    m = re.fullmatch(r"incident (\S+) journaled; postmortem draft: rocmdoctor postmortem (\S+)", last)
    assert m and m.group(1) == m.group(2)
    contents = read_journal(incidents / m.group(1) / "journal.jsonl")
    assert contents.header.command == "rocmdoctor triage local --runbook=incident_test_gpu"
    assert [e.kind for e in contents.events][-1] == "triage_finished"
    assert "amdgpu is not loaded" in render_postmortem(contents)
