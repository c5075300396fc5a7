"""The incident TUI driven by Textual's Pilot on simulated nodes: the tree
fills in, a fail is fixed after confirmation and verified, a note is added,
the postmortem names all of it; and keys are answered while a host hangs."""

from __future__ import annotations

import asyncio
import functools
import time
from pathlib import Path

import pytest
from textual.widgets import Button, Input

from rocmdoctor.errors import TargetError
from rocmdoctor.incident.journal import read_journal
from rocmdoctor.results import RemediationPlan
from rocmdoctor.status import State
from rocmdoctor.tui.app import IncidentApp, NodeWorkDone, PostmortemWritten
from rocmdoctor.tui.confirm import ConfirmRemediation
from rocmdoctor.tui.note import NoteScreen
from rocmdoctor.tui.postmortem_view import PostmortemScreen
from rocmdoctor.tui.triage_tree import NodeRef, TriageTree


def run_async(fn):  # type: ignore[no-untyped-def]
    """Run an async test without a pytest asyncio plugin (none is installed)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
        return asyncio.run(fn(*args, **kwargs))
    return wrapper


def triaged(app: IncidentApp) -> bool:
    """The triage ended and the cursor is on a step (the tree is reordered at the end and the first
    problem selected one refresh later)."""
    sel = app._selected()
    return app.model.phase == "done" and not app.busy and sel is not None and bool(sel.step_id)


async def wait_until(pilot, condition, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.05)


def _labels(app: IncidentApp) -> list[str]:
    tree = app.query_one(TriageTree)
    out = []

    def walk(node):  # type: ignore[no-untyped-def]
        out.append(node.label.plain)
        for c in node.children:
            walk(c)

    walk(tree.root)
    return out


def _kinds(session) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.kind for e in read_journal(session.journal.path).events]


@run_async
async def test_fix_a_failure_with_confirmation_note_and_postmortem(make_session) -> None:  # type: ignore[no-untyped-def]
    session = make_session()
    app = IncidentApp(session, user="oncall")
    messages: list = []
    async with app.run_test(size=(80, 24), message_hook=messages.append) as pilot:
        await wait_until(pilot, lambda: triaged(app))
        assert _labels(app) == ["✖ gpu-07", "✖ incident_test_gpu", "✔ AMD GPUs on the PCI bus",
                                "✖ amdgpu kernel module is loaded", "⚒ fix medium: Load the amdgpu kernel module"]
        # the cursor landed on the failing step; its detail shows evidence, diagnosis and the exact command
        assert app._selected() == NodeRef("step", "incident_test_gpu", "module")
        detail = app.detail_pane.plain
        assert "cat /proc/modules: no line starting with 'amdgpu '" in detail
        assert "The amdgpu kernel module is not loaded" in detail and "$ modprobe amdgpu" in detail

        await pilot.press("f")
        assert isinstance(app.screen, ConfirmRemediation)
        shown = " ".join(str(w.content) for w in app.screen.query("Static"))
        assert "$ modprobe amdgpu" in shown and "host: gpu-07" in shown
        assert "modprobe" not in _kinds(session)   # nothing ran before the answer
        await pilot.press("y")
        await wait_until(pilot, lambda: any(isinstance(m, NodeWorkDone) for m in messages) and not app.busy
                         and "remediation_verified" in _kinds(session))
        assert app.model.state == State.PASS
        assert _labels(app)[3] == "✔ amdgpu kernel module is loaded (after fix)"
        assert _labels(app)[4].endswith("ran ✔ fixed")
        assert "amdgpu" in (Path(session.node_root) / "proc/modules").read_text()  # the node really changed

        await pilot.press("n")
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"users see hipErrorNoDevice", "enter")
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PostmortemScreen))
        written = next(m for m in messages if isinstance(m, PostmortemWritten))
        await pilot.press("escape")
        await pilot.press("q")
    kinds = _kinds(session)
    assert kinds[:2] == ["triage_started", "evidence_collected"]
    decided = [e for e in read_journal(session.journal.path).events if e.kind == "remediation_decided"]
    assert decided[0].approved and decided[0].by == "oncall"   # type: ignore[attr-defined]
    assert kinds[-1] == "note"
    text = Path(written.path).read_text()
    assert "The amdgpu kernel module is not loaded" in text
    assert "`cat /proc/modules: no line starting with 'amdgpu '`" in text
    assert "- Approved by oncall at" in text and "**worked**" in text
    assert "users see hipErrorNoDevice" in text
    assert Path(written.path) == session.journal.directory / "postmortem.md"


@run_async
async def test_declined_fix_is_journaled_and_changes_nothing(make_session) -> None:  # type: ignore[no-untyped-def]
    session = make_session()
    app = IncidentApp(session, user="oncall")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: triaged(app))
        await pilot.press("f")
        await pilot.press("escape")
        await wait_until(pilot, lambda: "remediation_decided" in _kinds(session) and not app.busy)
        assert app.model.state == State.FAIL
        assert _labels(app)[4].endswith("declined")
    events = read_journal(session.journal.path).events
    decided = next(e for e in events if e.kind == "remediation_decided")
    assert not decided.approved and decided.reason == "declined in the TUI"   # type: ignore[attr-defined]
    assert "remediation_ran" not in [e.kind for e in events]
    assert "amdgpu" not in (Path(session.node_root) / "proc/modules").read_text()


@pytest.mark.serial
@run_async
async def test_keys_answered_while_a_check_hangs(make_session) -> None:  # type: ignore[no-untyped-def]
    session = make_session(runbooks=("incident_test_slow", "incident_test_gpu"), slow_seconds=8)
    app = IncidentApp(session, user="oncall")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.model.phase == "collecting")
        await pilot.pause(0.3)
        assert all(label.startswith("…") for label in _labels(app))   # running, shown as such
        t0 = time.monotonic()
        await pilot.press("down", "down")
        assert app._selected() == NodeRef("step", "incident_test_slow", "slow")
        await pilot.press("n", *"host hangs in probe", "enter")
        await pilot.press("f")                         # refused: the node is busy, no modal
        assert not isinstance(app.screen, ConfirmRemediation)
        assert time.monotonic() - t0 < 3, "keys were not answered while the probe hung"
        assert _kinds(session) == ["triage_started", "note"]   # journaled at once, triage still hanging
        assert app.busy == "triage"
        await pilot.press("q")                         # first q warns, the second quits
        assert app.is_running
        t1 = time.monotonic()
        await pilot.press("q")
    assert time.monotonic() - t1 < 3, "quit waited for the hung host"


@run_async
async def test_unreachable_target_is_shown_not_raised(make_session) -> None:  # type: ignore[no-untyped-def]
    def unreachable(request):  # type: ignore[no-untyped-def]
        raise TargetError("gpu-07: ssh: connect timed out after 10 s", "check the host is up")

    session = make_session(open_transport=unreachable)
    app = IncidentApp(session, user="oncall")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.model.phase == "error")
        assert "triage failed: gpu-07: ssh: connect timed out after 10 s" in app.model.error
        assert _labels(app)[0] == "… gpu-07 error"
        await pilot.press("q")


def _plan(risk: str, confirm: str = "yes") -> RemediationPlan:
    return RemediationPlan("incident_test_gpu", "reset", "Reset GPU 3", "amd-smi reset -G -g 3", risk, confirm,
                           None, "", 60, True)


@pytest.mark.parametrize("risk,confirm", [("high", "yes"), ("medium", "typed")])
@run_async
async def test_high_risk_needs_the_host_name_typed(risk: str, confirm: str) -> None:
    from textual.app import App

    results: list[bool] = []

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ConfirmRemediation(_plan(risk, confirm), "gpu-07"), results.append)

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, ConfirmRemediation) and modal.query_one("#run", Button).disabled
        await pilot.press("y", "enter")                # "y" goes into the field: not the host name
        assert results == [] and isinstance(app.screen, ConfirmRemediation)
        modal.query_one("#confirm-host", Input).value = ""
        await pilot.press(*"gpu-07")
        assert not modal.query_one("#run", Button).disabled
        await pilot.press("enter")
        await pilot.pause()
    assert results == [True]


@run_async
async def test_demo_node_end_to_end(tmp_path: Path) -> None:
    """The README path: the built-in demo node, its real runbooks, one fix."""
    from rocmdoctor.engine.core import TriageRequest
    from rocmdoctor.simnode.demo import demo_names
    from rocmdoctor.tui.session import IncidentSession

    if "amdgpu-not-loaded" not in demo_names():
        pytest.skip("demo scenario amdgpu-not-loaded not available")
    session = IncidentSession(TriageRequest("demo:amdgpu-not-loaded", runbooks=("gpu-not-visible",)),
                              incidents_dir=str(tmp_path / "inc"))
    app = IncidentApp(session, user="oncall")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: triaged(app), timeout=60)
        await pilot.press("f")
        assert "modprobe amdgpu" in str(app.screen.query_one("#confirm-command").content)
        await pilot.press("y")
        await wait_until(pilot, lambda: "remediation_verified" in _kinds(session) and not app.busy, timeout=60)
        verified = [e for e in read_journal(session.journal.path).events if e.kind == "remediation_verified"]
        assert verified[0].fixed  # type: ignore[attr-defined]
        await pilot.press("q")


def test_tui_command_bad_runbook_is_one_line_before_the_screen_opens() -> None:
    from typer.testing import CliRunner

    from rocmdoctor.cli.main import full_app

    app = full_app()

    r = CliRunner().invoke(app, ["tui", "demo:amdgpu-not-loaded", "--runbook", "nope"], catch_exceptions=False)
    assert r.exit_code == 2
    assert r.stderr.startswith("rocmdoctor: error: unknown runbook 'nope'")


@run_async
async def test_hardware_fault_node_fix_is_offered_and_declined(tmp_path: Path) -> None:
    """gpu-hardware-fault in the TUI like the other runbooks: the stuck GPU is the failing step,
    `f` offers its first fix (the drain, whose reason names the GPU), declining is journaled."""
    from rocmdoctor.engine.core import TriageRequest
    from rocmdoctor.tui.session import IncidentSession

    session = IncidentSession(TriageRequest("demo:hw-hang-unrecovered", runbooks=("gpu-hardware-fault",)),
                              incidents_dir=str(tmp_path / "inc"))
    app = IncidentApp(session, user="oncall")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: triaged(app), timeout=60)
        assert app.model.state == State.FAIL
        await pilot.press("f")
        command = str(app.screen.query_one("#confirm-command").content)
        assert "State=DRAIN" in command and "0000:85:00.0" in command
        await pilot.press("escape")
        await wait_until(pilot, lambda: "remediation_decided" in _kinds(session) and not app.busy)
        await pilot.press("q")
    events = read_journal(session.journal.path).events
    decided = next(e for e in events if e.kind == "remediation_decided")
    assert not decided.approved  # type: ignore[attr-defined]
    assert "remediation_ran" not in [e.kind for e in events]
