"""The incident journal: real triage events on a simulated node, read back;
flushed per event; survives kill -9; torn last line tolerated."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.errors import RocmdoctorError
from rocmdoctor.engine.events import DiagnosisMade, NoteAdded, RemediationVerified, StepFinished, TriageStarted
from rocmdoctor.incident.journal import (
    incident_ids,
    incidents_dir,
    load_incident,
    open_incident,
    read_journal,
    reopen_incident,
    resolve_id,
)
from rocmdoctor.status import State
from rocmdoctor.testing.incident import amdgpu_unloaded_node, plan_for
from rocmdoctor.simnode.node import sim_transport
from rocmdoctor.engine.triage import Decision, run_triage


@pytest.fixture
def node(tmp_path: Path) -> Path:
    return amdgpu_unloaded_node(tmp_path / "nodes")


def _triage(node: Path, tmp_path: Path, sink, fix: bool = True):  # type: ignore[no-untyped-def]
    transport = sim_transport(node, audit=AuditLog(tmp_path / "audit.log"))
    return run_triage(transport, plan_for(), target="gpu-07", fix=fix,
                      approver=lambda p, h: Decision(True, "oncall"), on_event=sink)


def test_journal_round_trips_a_real_triage(node: Path, tmp_path: Path) -> None:
    seen = []

    def sink(event):  # type: ignore[no-untyped-def]
        seen.append(event)
        journal(event)

    with open_incident("gpu-07", base=tmp_path / "inc", user="oncall") as journal:
        assert not journal.path.exists(), "nothing is created before the first event"
        _triage(node, tmp_path, sink)
        journal.note("users report hipErrorNoDevice", host="gpu-07")
    contents = read_journal(journal.path)
    assert contents.problems == []
    assert contents.header.id == journal.id and contents.header.user == "oncall"
    assert contents.header.target == "gpu-07" and contents.header.front_end == "triage"
    assert [e.to_dict() for e in contents.events[:-1]] == [e.to_dict() for e in seen]
    steps = [e for e in contents.events if isinstance(e, StepFinished)]
    module = next(s.step.check for s in steps if s.step.step_id == "module")
    assert module.state == State.FAIL
    assert module.evidence == ("cat /proc/modules: no line starting with 'amdgpu '",)
    diag = next(e for e in contents.events if isinstance(e, DiagnosisMade)).diagnosis
    assert diag.diagnosis_id == "module-not-loaded" and diag.remediations[0].command == "modprobe amdgpu"
    verified = next(e for e in contents.events if isinstance(e, RemediationVerified))
    assert verified.fixed and verified.check.state == State.PASS
    started = next(e for e in contents.events if isinstance(e, TriageStarted))
    assert started.runbook_versions == {"incident_test_gpu": "1"}
    assert contents.events[-1] == NoteAdded(host="gpu-07", text="users report hipErrorNoDevice",
                                            author=contents.events[-1].author, time=contents.events[-1].time)


def test_each_event_is_on_disk_before_the_next_is_made(node: Path, tmp_path: Path) -> None:
    journal = open_incident("gpu-07", base=tmp_path / "inc")
    counts = []

    def sink(event):  # type: ignore[no-untyped-def]
        journal(event)
        # a separate reader (another open file) sees the line at once
        counts.append(len(journal.path.read_text().splitlines()))

    _triage(node, tmp_path, sink)
    assert counts == list(range(2, len(counts) + 2))  # header + one more line per event
    journal.close()


_CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from rocmdoctor.transports.audit import AuditLog
    from rocmdoctor.incident.journal import open_incident
    from rocmdoctor.testing.incident import amdgpu_unloaded_node, plan_for
    from rocmdoctor.simnode.node import sim_transport
    from rocmdoctor.engine.triage import Decision, run_triage

    tmp = Path(sys.argv[1])
    root = amdgpu_unloaded_node(tmp / "nodes", slow_seconds=60)
    t = sim_transport(root, audit=AuditLog(tmp / "audit.log"))
    j = open_incident("gpu-07", base=tmp / "inc", user="oncall")
    run_triage(t, plan_for(), target="gpu-07", fix=True,
               approver=lambda p, h: Decision(True, "oncall"), on_event=j)
    j.note("before the hang", host="gpu-07")
    # this triage hangs in its probe (slowtool sleeps): the process is killed here
    run_triage(t, plan_for(("incident_test_slow",)), target="gpu-07", on_event=j)
""")


def test_journal_survives_kill_9_and_renders_a_postmortem(tmp_path: Path) -> None:
    from rocmdoctor.incident.postmortem import render_postmortem

    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path)], start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ids = incident_ids(tmp_path / "inc")
            if ids and '"incident_test_slow"' in (tmp_path / "inc" / ids[0] / "journal.jsonl").read_text():
                break
            assert proc.poll() is None, "the child died on its own"
            time.sleep(0.05)
        else:
            pytest.fail("the child never reached the hanging triage")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    contents = load_incident("latest", tmp_path / "inc")
    assert contents.problems == []
    kinds = [e.kind for e in contents.events]
    assert kinds.count("triage_started") == 2 and kinds.count("triage_finished") == 1
    assert "remediation_verified" in kinds and kinds[-1] == "triage_started"
    text = render_postmortem(contents)
    assert "The amdgpu kernel module is not loaded" in text
    assert "`modprobe amdgpu`" in text and "before the hang" in text


def test_torn_last_line_is_ignored_and_sealed_before_appending(node: Path, tmp_path: Path) -> None:
    with open_incident("gpu-07", base=tmp_path / "inc") as journal:
        _triage(node, tmp_path, journal, fix=False)
    whole = journal.path.read_bytes()
    n_events = len(read_journal(journal.path).events)
    with open(journal.path, "ab") as fh:  # a writer killed mid-line
        fh.write(b'{"event": "note", "host": "gpu-07", "text": "half a no')
    contents = read_journal(journal.path)
    assert len(contents.events) == n_events
    torn_line = whole.count(b"\n") + 1
    assert contents.problems == [f"{journal.path}:{torn_line}: torn last line "
                                 "(the writer was killed mid-write), ignored"]
    with reopen_incident(journal.id, tmp_path / "inc") as again:
        again.note("after the crash", host="gpu-07", author="oncall")
    contents = read_journal(journal.path)
    assert contents.events[-1].text == "after the crash"  # type: ignore[attr-defined]
    assert len(contents.events) == n_events + 1
    assert "not a JSON event" in contents.problems[0]


def test_garbage_and_unknown_events_are_reported_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "x" / "journal.jsonl"
    path.parent.mkdir()
    path.write_text('{"event": "incident_opened", "id": "x", "target": "n1", "time": "2025-01-01T00:00:00+00:00"}\n'
                    'not json\n{"event": "from_the_future", "host": "n1"}\n'
                    '{"event": "note", "host": "n1", "time": "2025-01-01T00:00:01+00:00", "text": "hi", "author": "a"}\n')
    contents = read_journal(path)
    assert [e.kind for e in contents.events] == ["note"]
    assert contents.problems[0] == f"{path}:2: not a JSON event, ignored"
    assert contents.problems[1].startswith(f"{path}:3: unreadable 'from_the_future' event")


def test_resolve_ids_by_prefix_and_latest(tmp_path: Path) -> None:
    base = tmp_path / "inc"
    for i in ("20250101-000000-aaaa", "20250101-000000-aabb", "20250202-000000-cccc"):
        (base / i).mkdir(parents=True)
        (base / i / "journal.jsonl").write_text("")
    assert resolve_id("latest", base).parent.name == "20250202-000000-cccc"
    assert resolve_id("20250202", base).parent.name == "20250202-000000-cccc"
    with pytest.raises(RocmdoctorError, match="ambiguous"):
        resolve_id("20250101-000000-aa", base)
    with pytest.raises(RocmdoctorError, match="no incident 'nope'"):
        resolve_id("nope", base)
    with pytest.raises(RocmdoctorError, match="no incidents in"):
        resolve_id("latest", tmp_path / "empty")


def test_incidents_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ROCMDOCTOR_INCIDENTS_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert incidents_dir() == tmp_path / "xdg" / "rocmdoctor" / "incidents"
    monkeypatch.setenv("ROCMDOCTOR_INCIDENTS_DIR", str(tmp_path / "env"))
    assert incidents_dir() == tmp_path / "env"
    assert incidents_dir(tmp_path / "opt") == tmp_path / "opt"


def test_a_write_error_is_kept_not_raised(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    journal = open_incident("gpu-07", base=tmp_path / "file")
    journal.note("x", host="gpu-07")
    assert journal.error is not None and str(tmp_path / "file") in journal.error
    assert not journal.started


def test_journal_lines_are_plain_json(node: Path, tmp_path: Path) -> None:
    with open_incident("gpu-07", base=tmp_path / "inc") as journal:
        _triage(node, tmp_path, journal, fix=False)
    lines = journal.path.read_text().splitlines()
    assert json.loads(lines[0])["event"] == "incident_opened"
    assert all(isinstance(json.loads(line), dict) for line in lines)


def test_an_event_after_close_is_kept_and_no_handle_stays_open(tmp_path: Path) -> None:
    """A worker that outlives the TUI (quit while a host hung) still journals its last events."""
    journal = open_incident("gpu-07", base=tmp_path)
    journal.note("before quit", host="gpu-07")
    journal.close()
    journal.note("from the hung worker", host="gpu-07")
    assert journal._fh is None
    notes = [json.loads(line).get("text") for line in journal.path.read_text().splitlines()]
    assert notes[-2:] == ["before quit", "from the hung worker"]
