"""The incident TUI: watch a triage live, fix with confirmation, take notes,
write the postmortem draft.

Threading rule: everything that talks to the node runs in a Textual thread
worker (`_on_node`); workers never touch widgets, they post messages (thread
safe) that the UI folds into the TriageModel. Inside the worker the call runs
in a daemon thread polled for cancellation, so `q` quits at once even while a
host hangs (the command still ends at its own timeout).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Footer, Header, Tree
from textual.worker import get_current_worker

from rocmdoctor.engine.events import Event, TriageFinished
from rocmdoctor.engine.triage import Decision
from rocmdoctor.tui.confirm import ConfirmRemediation
from rocmdoctor.tui.detail import DetailPane
from rocmdoctor.tui.model import FixView, TriageModel
from rocmdoctor.tui.note import NoteScreen
from rocmdoctor.tui.postmortem_view import PostmortemScreen
from rocmdoctor.tui.session import IncidentSession
from rocmdoctor.tui.triage_tree import NodeRef, TriageTree


class TriageEventPosted(Message):
    """An event from the node (already journaled), for the UI thread."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class NodeWorkDone(Message):
    """A worker finished: `error` is a one-line message when it failed."""

    def __init__(self, what: str, error: str = "") -> None:
        super().__init__()
        self.what = what
        self.error = error


class NoteSaved(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class PostmortemWritten(Message):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path


class IncidentApp(App[None]):
    TITLE = "rocmdoctor"
    CSS = """
/* Usable at 80x24: tree left, detail right, one line of header and footer. */
#main { height: 1fr; }
#tree { width: 42%; min-width: 30; border-right: solid $primary-darken-2; }
#detail { width: 1fr; padding: 0 1; }

ConfirmRemediation, NoteScreen, PostmortemScreen { align: center middle; }
#confirm-dialog { width: 76; max-width: 100%; height: auto; border: thick $error; background: $surface; padding: 0 1; }
#confirm-command { margin: 1 0; }
#confirm-buttons { height: auto; align-horizontal: right; }
#confirm-buttons Button { margin-left: 2; }
#note-dialog { width: 76; max-width: 100%; height: auto; border: thick $primary; background: $surface; padding: 0 1; }
#postmortem-dialog { width: 100%; height: 100%; border: thick $primary; background: $surface; }
#postmortem-path { padding: 0 1; }
"""
    BINDINGS = [
        Binding("f", "fix", "Fix"),
        Binding("r", "rerun", "Re-run"),
        Binding("n", "note", "Note"),
        Binding("p", "postmortem", "Postmortem"),
        Binding("q", "quit_app", "Quit"),
    ]

    def __init__(self, session: IncidentSession, *, user: str | None = None) -> None:
        super().__init__()
        from rocmdoctor.transports.audit import local_user

        self.session = session
        self.user = user or local_user()
        self.model = TriageModel(session.plan, session.request.target)
        self.busy: str | None = None
        self._quit_armed = 0.0

    # -- layout ----------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # kept as attributes: while a modal is up, app.query_one() would search the modal
        self.triage_tree = TriageTree(self.model, id="tree")
        self.detail_pane = DetailPane(id="detail")
        yield Header(show_clock=False, icon="")
        with Horizontal(id="main"):
            yield self.triage_tree
            yield self.detail_pane
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.session.request.target} · incident {self.session.journal.id}"
        self.triage_tree.focus()
        self._show_detail()
        self._start("triage", lambda: self.session.triage(self._forward))

    # -- talking to the node -----------------------------------------------------
    def _forward(self, event: Event) -> None:
        self.post_message(TriageEventPosted(event))

    def _start(self, what: str, call: Callable[[], Any]) -> None:
        self.busy = what
        self._on_node(what, call)

    @work(thread=True, exit_on_error=False, group="node")
    def _on_node(self, what: str, call: Callable[[], Any]) -> None:
        worker = get_current_worker()
        box: dict[str, BaseException] = {}

        def run() -> None:
            try:
                call()
            except BaseException as exc:  # noqa: BLE001 - reported to the UI, never a traceback
                box["error"] = exc

        thread = threading.Thread(target=run, name=f"rocmdoctor-{what}", daemon=True)
        thread.start()
        while thread.is_alive():
            thread.join(0.05)
            if worker.is_cancelled:
                return
        self.post_message(NodeWorkDone(what, _one_line(box["error"]) if "error" in box else ""))

    def on_triage_event_posted(self, message: TriageEventPosted) -> None:
        changed = self.model.apply(message.event)
        tree = self.triage_tree
        tree.refresh_steps(changed)
        if isinstance(message.event, TriageFinished) and tree.cursor_line <= 0:
            tree.order_by_state()        # only if the user has not moved yet: the tree is rebuilt,
            tree.call_after_refresh(self._select_first_problem)  # and its lines exist after a refresh
        self._show_detail()

    def _select_first_problem(self) -> None:
        self.triage_tree.select_first_problem()
        self._show_detail()

    def on_node_work_done(self, message: NodeWorkDone) -> None:
        self.busy = None
        if message.error:
            self.model.error = f"{message.what} failed: {message.error}"
            if self.model.phase != "done":
                self.model.phase = "error"
            for fv in self.model.fixes.values():
                if fv.status == "running":
                    fv.status = "proposed"
            self.notify(self.model.error, severity="error", timeout=10)
        self.triage_tree.refresh_all()
        self._show_detail()

    # -- selection -----------------------------------------------------------------
    def _selected(self) -> NodeRef | None:
        node = self.triage_tree.cursor_node
        return node.data if node is not None else None

    def _show_detail(self) -> None:
        self.detail_pane.show(self.model, self._selected(), incident=self.session.journal.id,
                                        journal=str(self.session.journal.path))

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted) -> None:  # type: ignore[type-arg]
        self._show_detail()

    # -- actions -----------------------------------------------------------------
    def _refuse_if_busy(self) -> bool:
        if self.busy:
            self.notify(f"busy: {self.busy} is still running on {self.model.host}; wait for it",
                        severity="warning")
            return True
        return False

    def _fix_for(self, ref: NodeRef | None) -> FixView | None:
        if ref is None:
            return None
        if ref.kind == "fix":
            return self.model.fixes.get((ref.runbook_id, ref.command))
        if ref.kind == "host":
            candidates = [f for rb in self.model.runbooks for f in self.model.fixes_for(rb)]
        else:
            candidates = self.model.fixes_for(ref.runbook_id, ref.step_id if ref.kind == "step" else None)
        open_ = [f for f in candidates if not (f.verify is not None and f.verify.state.value == "pass")]
        return (open_ or candidates or [None])[0]

    def action_fix(self) -> None:
        if self._refuse_if_busy():
            return
        fv = self._fix_for(self._selected())
        if fv is None:
            self.notify("no remediation is proposed for the selected node", severity="warning")
            return
        plan, host = fv.plan, self.model.host

        def decided(approved: bool | None) -> None:
            decision = Decision(True, self.user) if approved else Decision(False, self.user, "declined in the TUI")
            self._start(f"remediation '{plan.title}'",
                        lambda: self.session.remediate(plan, decision, self._forward))

        self.push_screen(ConfirmRemediation(plan, host), decided)

    def action_rerun(self) -> None:
        if self._refuse_if_busy():
            return
        ref = self._selected()
        ids = (ref.runbook_id,) if ref is not None and ref.runbook_id else ()
        self.model.start(ids)
        self.triage_tree.refresh_all()
        self._start("re-run " + (ids[0] if ids else "all runbooks"),
                    lambda: self.session.triage(self._forward, ids))

    def action_note(self) -> None:
        def save(text: str | None) -> None:
            if not text:
                return
            event = self.session.note(text, author=self.user)
            self.model.apply(event)
            if self.session.journal.error:
                self.notify(f"note NOT saved: {self.session.journal.error}", severity="error")
            else:
                self.notify("note added to the timeline")
            self._show_detail()
            self.post_message(NoteSaved(text))

        self.push_screen(NoteScreen(), save)

    def action_postmortem(self) -> None:
        from rocmdoctor.errors import RocmdoctorError
        from rocmdoctor.incident.journal import read_journal
        from rocmdoctor.incident.postmortem import render_postmortem

        journal = self.session.journal
        if not journal.started:
            self.notify("nothing journaled yet", severity="warning")
            return
        try:
            text = render_postmortem(read_journal(journal.path))
            path = journal.directory / "postmortem.md"
            path.write_text(text, encoding="utf-8")
        except (RocmdoctorError, OSError) as exc:
            self.notify(f"postmortem not written: {_one_line(exc)}", severity="error")
            return
        self.post_message(PostmortemWritten(str(path)))
        self.push_screen(PostmortemScreen(str(path), text))

    def action_quit_app(self) -> None:
        if self.busy and time.monotonic() - self._quit_armed > 5:
            self._quit_armed = time.monotonic()
            self.notify(f"{self.busy} is still running on {self.model.host}: press q again to quit "
                        "(the command ends at its own timeout)", severity="warning")
            return
        self.exit()

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "node")
        self.session.journal.close()


def _one_line(exc: BaseException) -> str:
    from rocmdoctor.errors import RocmdoctorError

    if isinstance(exc, RocmdoctorError):
        return str(exc)
    return " ".join(f"{type(exc).__name__}: {exc}".split())
