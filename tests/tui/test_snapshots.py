"""SVG snapshots of the main TUI screens at 80x24 (pytest-textual-snapshot).

Deterministic: a fixed incident id, a simulated node, the cursor on the
failing step (whose detail holds no times). Update after a deliberate change
with `pytest tests/tui/test_snapshots.py --snapshot-update` and look at the
SVGs in tests/tui/__snapshots__/ before committing them.
"""

from __future__ import annotations

import time

import pytest

from rocmdoctor.tui.app import IncidentApp


@pytest.fixture
def app(make_session, monkeypatch: pytest.MonkeyPatch) -> IncidentApp:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("rocmdoctor.incident.journal.new_incident_id", lambda now=None: "20250314-024107-a3f9")
    return IncidentApp(make_session(), user="oncall")


async def _triaged(pilot) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    deadline = time.monotonic() + 30
    while not (app.model.phase == "done" and not app.busy and app._selected() is not None
               and app._selected().step_id):
        assert time.monotonic() < deadline, "triage did not finish"
        await pilot.pause(0.05)
    await pilot.pause()


def test_main_screen_after_triage(snap_compare, app: IncidentApp) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app, run_before=_triaged, terminal_size=(80, 24))


def test_confirm_remediation_dialog(snap_compare, app: IncidentApp) -> None:  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _triaged(pilot)
        await pilot.press("f")
        await pilot.pause()

    assert snap_compare(app, run_before=before, terminal_size=(80, 24))


def test_after_the_fix_is_verified(snap_compare, app: IncidentApp) -> None:  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _triaged(pilot)
        await pilot.press("f", "y")
        deadline = time.monotonic() + 30
        while pilot.app.busy or "remediation_verified" not in [e.kind for e in _events(pilot.app)]:
            assert time.monotonic() < deadline
            await pilot.pause(0.05)
        # the fixed step's detail shows how long the fix took (varies run to run, and
        # so does its line wrapping): snapshot the tree with a steady step selected
        await pilot.press("up")
        await pilot.pause()

    assert snap_compare(app, run_before=before, terminal_size=(80, 24))


def _events(app: IncidentApp):  # type: ignore[no-untyped-def]
    from rocmdoctor.incident.journal import read_journal

    return read_journal(app.session.journal.path).events


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
def test_failing_runbooks_first_and_passing_ones_folded(snap_compare, make_session, monkeypatch, size) -> None:  # type: ignore[no-untyped-def]
    """Issue 43: the runbook that fails comes first and open, whatever the order it was asked in;
    passing runbooks are one line with their count, so the failing steps are on the first screen."""
    monkeypatch.setattr("rocmdoctor.incident.journal.new_incident_id", lambda now=None: "20250314-024107-a3f9")
    app = IncidentApp(make_session(runbooks=("thermal-throttling", "container-mount-failure", "kernel-driver-mismatch", "incident_test_gpu")), user="oncall")

    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _triaged(pilot)
        tree = pilot.app.triage_tree
        states = {rb.id: rb.state.value for rb in pilot.app.model.runbooks.values()}
        shown = [states[n.data.runbook_id] for n in tree.root.children]
        rank = {"fail": 0, "warn": 1, "unknown": 2, "pass": 4}
        assert shown == sorted(shown, key=rank.__getitem__) and shown[0] == "fail" and "pass" in shown
        for n in tree.root.children:
            assert n.is_expanded == (states[n.data.runbook_id] != "pass")

    assert snap_compare(app, run_before=before, terminal_size=size)
