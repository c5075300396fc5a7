"""The fleet view: a live sweep as a host table, the cohort findings on top, one host's triage
tree on Enter, and a drain of a whole cohort behind one confirmation that lists every host.

Threading as in the incident view: the sweep runs in a Textual thread worker and posts one
message per host result; the UI folds them into rows. Sorting and filtering touch only the
table, so keys are answered while hosts are still being probed. Everything the operator decides
(the drain, who approved it) is appended to the fleet journal as it happens.
"""

from __future__ import annotations

import collections
import json
import os
import time
from pathlib import Path
from typing import Any, Callable

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Input, Label, Static

from rocmdoctor.status import State
from rocmdoctor.tui.host_table import Column, HostTable, StatusLine
from rocmdoctor.tui.styles import state_badge

SORTS = ("state", "host", "diagnosis", "kernel")
INBOX_PERIOD = 1.0    # seconds between folding arrived host results into the table (one render per batch)
FILTER_DELAY = 0.15   # seconds of no typing before the filter rebuilds the rows
#: widest a column is drawn (longer values end in '…'; Enter shows the host whole)
COLUMNS = (Column("host", 40), Column("state", 10), Column("diagnosis", 64), Column("kernel", 32),
           Column("rocm", 12), Column("gpus", 4))


def diagnosis_of(h: Any) -> str:
    """The host's first failing runbook/diagnosis (or its unreachable reason)."""
    if h.reason:
        return f"unreachable: {h.reason}"
    if h.report is None:
        return ""
    for rb in h.report.runbooks:
        if rb.state in (State.FAIL, State.WARN):
            return f"{rb.runbook_id}/{rb.diagnoses[0].diagnosis_id}" if rb.diagnoses else f"{rb.runbook_id}/?"
    return ""


class FleetJournal:
    """JSON lines, appended and flushed per record: what the operator saw and decided."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.path = Path(directory) / "fleet-journal.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, kind: str, **fields: Any) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"ts": round(time.time(), 3), "kind": kind, **fields}, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())


class FleetSession:
    """What the fleet view needs from the core: run the sweep, drain hosts."""

    def __init__(self, sweep: Callable[[Callable[[Any], None]], Any], *, journal_dir: str,
                 drain: Callable[[list[str], str], dict[str, str]] | None = None, user: str = "") -> None:
        self._sweep = sweep
        self._drain = drain
        self.journal = FleetJournal(journal_dir)
        self.user = user or os.environ.get("USER", "operator")

    def run(self, on_host: Callable[[Any], None]) -> Any:
        self.journal.write("sweep_started")
        result = self._sweep(on_host)
        self.journal.write("sweep_finished", counts=result.counts(),
                           cohorts=[c.to_dict() for c in result.cohorts])
        return result

    def drain(self, hosts: list[str], reason: str) -> dict[str, str]:
        self.journal.write("drain_approved", hosts=hosts, reason=reason, by=self.user)
        outcome = self._drain(hosts, reason) if self._drain else {h: "no drain command configured" for h in hosts}
        self.journal.write("drain_done", outcome=outcome)
        return outcome


class HostDone(Message):
    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host


class SweepDone(Message):
    def __init__(self, result: Any, error: str = "") -> None:
        super().__init__()
        self.result = result
        self.error = error


class ConfirmCohort(ModalScreen[bool]):
    """Drain every host of a cohort: the hosts are listed, one confirmation for all."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", priority=True), Binding("n", "cancel", "No", show=False),
                Binding("y", "run", "Yes", show=False)]

    def __init__(self, cohort: str, hosts: list[str], reason: str) -> None:
        super().__init__()
        self.cohort, self.hosts, self.reason = cohort, hosts, reason

    def compose(self) -> ComposeResult:
        from rocmdoctor.fleet.hostlist import fold

        with Vertical(id="confirm-dialog"):
            yield Label(Text.assemble(("Drain ", "bold"), (f"{len(self.hosts)} host(s)", "bold red"),
                                      (f" of {self.cohort}?", "bold")))
            yield Static(Text(fold(self.hosts)), id="cohort-hosts")
            yield Static(Text(", ".join(self.hosts), style="dim"), id="cohort-all")
            yield Static(Text.assemble(("reason: ", "bold"), self.reason))
            yield Button("Drain", variant="error", id="run")
            yield Button("Cancel", variant="primary", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#cancel").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "run")

    def action_run(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class HostScreen(Screen[None]):
    """One host's triage tree, from its report (the same tree as `rocmdoctor tui HOST`)."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("q", "app.pop_screen", "Back", show=False)]

    def __init__(self, host: Any, plan: Any) -> None:
        super().__init__()
        self.host, self.plan = host, plan

    def compose(self) -> ComposeResult:
        from rocmdoctor.engine.events import DiagnosisMade, StepFinished, TriageFinished
        from rocmdoctor.tui.model import TriageModel
        from rocmdoctor.tui.triage_tree import TriageTree

        model = TriageModel(self.plan, self.host.host)
        report = self.host.report
        model.start(tuple(rb.runbook_id for rb in report.runbooks))
        for rb in report.runbooks:
            for step in rb.steps:
                model.apply(StepFinished(host=self.host.host, step=step))
            for d in rb.diagnoses:
                model.apply(DiagnosisMade(host=self.host.host, diagnosis=d))
        model.apply(TriageFinished(host=self.host.host, state=report.state.value,
                                   exit_status=int(report.exit_status), duration_ms=report.duration_ms))
        yield Header()
        yield TriageTree(model, id="host-tree")
        yield Footer()


class FleetApp(App[None]):
    TITLE = "rocmdoctor fleet"
    CSS = """
    #cohorts { height: auto; max-height: 40%; padding: 0 1; border-bottom: solid $accent; }
    #filter { display: none; }
    #filter.shown { display: block; }
    #confirm-dialog { width: 90%; height: auto; border: thick $error; padding: 1 2; background: $surface; }
    ConfirmCohort { align: center middle; }
    """
    BINDINGS = [Binding("q", "finish", "Quit"), Binding("s", "sort", "Sort"), Binding("/", "filter", "Filter"),
                Binding("escape", "clear_filter", "Clear", show=False), Binding("enter", "open", "Host"),
                Binding("d", "drain", "Drain cohort")]

    def __init__(self, session: FleetSession, plan: Any = None) -> None:
        super().__init__()
        self.session, self.plan = session, plan
        self.hosts: dict[str, Any] = {}
        self.result: Any = None
        self.sort_key = "state"
        self.filter_text = ""
        self.phase = "sweeping"
        self._resort_pending = False
        self._filter_timer: Any = None
        self.postmortem_path = ""
        self._cell_cache: dict[str, tuple[Any, tuple[Text, ...]]] = {}
        self._severity_cache: dict[str, tuple[Any, int]] = {}
        self._inbox: collections.deque[Any] = collections.deque()   # appended by the sweep thread

    def compose(self) -> ComposeResult:
        yield Header()
        yield StatusLine(id="status")
        yield Static(Text("sweeping...", style="cyan"), id="cohorts")
        yield Input(placeholder="filter: host, state, diagnosis or kernel", id="filter")
        yield HostTable(COLUMNS, id="hosts")
        yield Footer()

    def on_mount(self) -> None:
        self._table().focus()
        self.set_interval(INBOX_PERIOD, self._empty_inbox)
        self._run_sweep()

    def _empty_inbox(self) -> None:
        if not self.is_running or not self.screen_stack:
            return
        while self._inbox:
            self.on_host_done(HostDone(self._inbox.popleft()))
        if self._resort_pending:        # one re-order per batch, not per host
            self._resort_pending = False
            self._reorder()

    def _reorder(self) -> None:
        """Sort and filter every known host into the table: a list operation (the table renders
        only the lines on screen), so no row cap and no incremental bookkeeping."""
        key = self._sort_key()
        shown = sorted((h for h in self.hosts.values() if self._matches(h)), key=key)
        self._table().set_rows([(h.host, self._cells(h)) for h in shown])
        self._show_status()

    @work(thread=True, exclusive=True, group="sweep")
    def _run_sweep(self) -> None:
        # Results go into an inbox the UI empties four times a second: one message per host would
        # queue keys behind hundreds of row updates during a 1,000-host sweep.
        try:
            result = self.session.run(self._inbox.append)
        except Exception as exc:  # noqa: BLE001 - shown, never a traceback over the screen
            self.post_message(SweepDone(None, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(SweepDone(result))

    # -- rows ---------------------------------------------------------------
    def _base(self) -> Screen[Any]:
        """The fleet screen itself, also while a host's tree or a confirmation is on top."""
        return self.screen_stack[0]

    def _table(self) -> HostTable:
        return self._base().query_one("#hosts", HostTable)

    def _cells(self, h: Any) -> tuple[Text, ...]:
        """Built once per host result (the sort keys read the same cache)."""
        cached = self._cell_cache.get(h.host)
        if cached is not None and cached[0] is h:
            return cached[1]
        cells = self._row(h)
        self._cell_cache[h.host] = (h, cells)
        return cells

    def _row(self, h: Any) -> tuple[Text, ...]:
        fp = getattr(h.report, "fingerprint", None) or {}
        # Text, not str: a str cell is parsed as markup on every measure and render (and a value
        # from a node must never be read as markup anyway).
        return (Text(h.host), state_badge(h.state, word=True), Text(diagnosis_of(h)),
                Text(str(fp.get("kernel") or "")), Text(str(fp.get("rocm") or "")),
                Text(str(fp.get("gpu_count", "")) if fp else ""))

    def _sort_key(self) -> Callable[[Any], Any]:
        cells, severity = self._cells, self._severity
        keys: dict[str, Callable[[Any], Any]] = {
            "state": lambda h: (-severity(h), h.host), "host": lambda h: h.host,
            "diagnosis": lambda h: (cells(h)[2].plain == "", cells(h)[2].plain, h.host),
            "kernel": lambda h: (cells(h)[3].plain, h.host)}
        return keys[self.sort_key]

    def _severity(self, h: Any) -> int:
        """A host's state is derived from its steps on every access: computed once per result."""
        cached = self._severity_cache.get(h.host)
        if cached is None or cached[0] is not h:
            cached = (h, h.state.severity)
            self._severity_cache[h.host] = cached
        return cached[1]

    def _show_status(self) -> None:
        self._base().query_one("#status", StatusLine).text = (
            f"{len(self.hosts)} host(s), sorted by {self.sort_key}"
            + (f", filter '{self.filter_text}'" if self.filter_text else "") + f" [{self.phase}]")

    def _selected_host(self) -> str | None:
        return self._table().cursor_key

    def on_host_table_selected(self, event: HostTable.Selected) -> None:
        """Enter on a row (the table takes the key itself): that host's triage tree."""
        self.action_open()

    def _matches(self, h: Any) -> bool:
        if not self.filter_text:
            return True
        fp = getattr(h.report, "fingerprint", None) or {}
        return self.filter_text.lower() in " ".join([h.host, h.state.value, diagnosis_of(h),
                                                     str(fp.get("kernel", ""))]).lower()

    def on_host_done(self, message: HostDone) -> None:
        """Record the result; the table is re-sorted once per inbox batch, not per host."""
        self.hosts[message.host.host] = message.host
        self._resort_pending = True

    def on_sweep_done(self, message: SweepDone) -> None:
        if not self.screen_stack:
            return
        self._empty_inbox()
        self.phase = "done"
        cohorts = self._base().query_one("#cohorts", Static)
        if message.error:
            cohorts.update(Text(f"sweep failed: {message.error}", style="bold red"))
            self._reorder()          # the hosts that did answer, with the final status line
            return
        self.result = message.result
        for h in message.result.hosts:
            self.hosts[h.host] = h
        from rocmdoctor.fleet.cohorts import render_cohorts

        text = render_cohorts(message.result.cohorts, limit=5).strip("\n")
        counts = ", ".join(f"{n} {s}" for s, n in message.result.counts().items() if n)
        cohorts.update(Text(f"{len(message.result.hosts)} host(s): {counts}\n" + (text or "no cohort: nothing failed")))
        self._reorder()
        self._table().action_edge(0)   # the worst host, ready for Enter or d

    # -- actions ------------------------------------------------------------
    def action_finish(self) -> None:
        """Quit; after a finished sweep leave a postmortem draft beside the journal."""
        if self.result is not None:
            from rocmdoctor.incident.fleet_postmortem import write_fleet_postmortem

            self.postmortem_path = str(write_fleet_postmortem(self.session.journal.path))
        self.exit()

    def action_sort(self) -> None:
        self.sort_key = SORTS[(SORTS.index(self.sort_key) + 1) % len(SORTS)]
        self._reorder()

    def action_filter(self) -> None:
        box = self._base().query_one("#filter", Input)
        box.add_class("shown")
        box.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Rebuild the rows once typing pauses: each keystroke is echoed at once."""
        self.filter_text = event.value.strip()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY, self._apply_filter)

    def _apply_filter(self) -> None:
        self._filter_timer = None
        if self.screen_stack:
            self._reorder()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._apply_filter()
        self._table().focus()

    def action_clear_filter(self) -> None:
        box = self._base().query_one("#filter", Input)
        box.value = ""
        box.remove_class("shown")
        self.filter_text = ""
        self._table().focus()
        self._reorder()

    def action_open(self) -> None:
        name = self._selected_host()
        h = self.hosts.get(name or "")
        if h is None or h.report is None or self.plan is None:
            self.notify("no triage for this host (unreachable or still running)", severity="warning")
            return
        self.push_screen(HostScreen(h, self.plan))

    def action_drain(self) -> None:
        if self.result is None:
            self.notify("the sweep is still running: drain once the cohorts are known", severity="warning")
            return
        name = self._selected_host()
        cohort = next((c for c in self.result.cohorts if name in c.hosts), None)
        if cohort is None:
            self.notify(f"{name} is in no failing cohort: nothing to drain", severity="warning")
            return
        label = f"{cohort.runbook}/{cohort.diagnosis}"
        reason = f"rocmdoctor: {label}" + (f" ({cohort.findings[0].attribute} {cohort.findings[0].value})"
                                            if cohort.findings else "")
        hosts = list(cohort.hosts)

        def decided(ok: bool | None) -> None:
            if not ok:
                self.session.journal.write("drain_declined", hosts=hosts, cohort=label, by=self.session.user)
                self.notify("not drained", severity="information")
                return
            outcome = self.session.drain(hosts, reason)
            done = sum(1 for v in outcome.values() if v == "drained")
            self.notify(f"drained {done} of {len(hosts)} host(s) of {label}")

        self.push_screen(ConfirmCohort(label, hosts, reason), decided)
