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
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Static

from rocmdoctor.status import State
from rocmdoctor.tui.styles import state_badge

SORTS = ("state", "host", "diagnosis", "kernel")
INBOX_PERIOD = 1.0    # seconds between folding arrived host results into the table (one render per batch)
FILTER_DELAY = 0.15   # seconds of no typing before the filter rebuilds the rows
#: rows the table holds: the worst first in the chosen order; the rest is reached with the filter
#: (a Textual DataTable of 1,000 rows takes ~0.1 s to re-render on a 2-core box, and keys wait)
MAX_ROWS = 200
COLUMNS = ("host", "state", "diagnosis", "kernel", "rocm", "gpus")


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
        self._hidden = 0
        self._inbox: collections.deque[Any] = collections.deque()   # appended by the sweep thread

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("sweeping...", style="cyan"), id="cohorts")
        yield Input(placeholder="filter: host, state, diagnosis or kernel", id="filter")
        table: DataTable[Any] = DataTable(id="hosts", cursor_type="row", zebra_stripes=True)
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self._table()
        for col in COLUMNS:
            table.add_column(col, key=col)
        table.focus()
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
        """Sort what is shown; when rows are held back, first swap in the ones that now belong to the
        first MAX_ROWS (a few rows added and removed: a full rebuild re-measures every cell)."""
        if self._hidden:
            visible = self._visible()
            want = [h.host for h in visible[:MAX_ROWS]]
            table = self._table()
            have = {str(k.value) for k in table.rows}
            for name in have - set(want):
                table.remove_row(name)
            for name in want:
                if name not in have:
                    table.add_row(*self._row(self.hosts[name]), key=name)
            self._hidden = max(0, len(visible) - MAX_ROWS)
        self._sort_in_place()

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

    def _table(self) -> DataTable[Any]:
        return self._base().query_one("#hosts", DataTable)

    def _row(self, h: Any) -> tuple[Any, ...]:
        fp = getattr(h.report, "fingerprint", None) or {}
        return (h.host, state_badge(h.state, word=True), diagnosis_of(h), fp.get("kernel") or "",
                fp.get("rocm") or "", str(fp.get("gpu_count", "")) if fp else "")

    def _sort_key(self) -> Callable[[Any], Any]:
        keys: dict[str, Callable[[Any], Any]] = {
            "state": lambda h: (-h.state.severity, h.host), "host": lambda h: h.host,
            "diagnosis": lambda h: (diagnosis_of(h) == "", diagnosis_of(h), h.host),
            "kernel": lambda h: (str((getattr(h.report, "fingerprint", None) or {}).get("kernel", "")), h.host)}
        return keys[self.sort_key]

    def _visible(self) -> list[Any]:
        return sorted((h for h in self.hosts.values() if self._matches(h)), key=self._sort_key())

    def _sort_in_place(self) -> None:
        """Re-order the rows the table already has (cheap: no cell is rebuilt)."""
        key, hosts = self._sort_key(), self.hosts
        def row_key(cells: Any) -> Any:
            name = str(cells[0] if isinstance(cells, tuple) else cells)
            return key(hosts[name]) if name in hosts else ("",)

        selected = self._selected_host()
        table = self._table()
        table.sort("host", key=row_key)
        if selected is not None and selected in table.rows:
            table.move_cursor(row=table.get_row_index(selected))   # the cursor follows its host
        self._subtitle()

    def _redraw(self) -> None:
        table = self._table()
        selected = self._selected_host()
        table.clear()
        rows = self._visible()
        self._hidden = max(0, len(rows) - MAX_ROWS)
        for h in rows[:MAX_ROWS]:
            table.add_row(*self._row(h), key=h.host)
        if selected is not None and selected in self.hosts:
            try:
                table.move_cursor(row=table.get_row_index(selected))
            except Exception:  # noqa: BLE001 - filtered out: stay at the top
                pass
        self._subtitle()

    def _subtitle(self) -> None:
        self.sub_title = (f"{len(self.hosts)} host(s), sorted by {self.sort_key}"
                          + (f", filter '{self.filter_text}'" if self.filter_text else "")
                          + (f", first {MAX_ROWS} shown (/ to filter)" if self._hidden else "") + f" [{self.phase}]")

    def _selected_host(self) -> str | None:
        table = self._table()
        if table.row_count == 0:
            return None
        try:
            return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        except Exception:  # noqa: BLE001
            return None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row (the table takes the key itself): that host's triage tree."""
        self.action_open()

    def _matches(self, h: Any) -> bool:
        if not self.filter_text:
            return True
        fp = getattr(h.report, "fingerprint", None) or {}
        return self.filter_text.lower() in " ".join([h.host, h.state.value, diagnosis_of(h),
                                                     str(fp.get("kernel", ""))]).lower()

    def on_host_done(self, message: HostDone) -> None:
        """Append the row now; re-sort at most twice a second: a full redraw per host would make a
        1,000-host sweep quadratic and the keys would wait behind it."""
        h = message.host
        known = h.host in self.hosts
        self.hosts[h.host] = h
        table = self._table()
        if self._matches(h):
            if known and h.host in table.rows:
                table.remove_row(h.host)
            if table.row_count < MAX_ROWS:
                table.add_row(*self._row(h), key=h.host)
            else:
                self._hidden += 1
        self._resort_pending = True

    def on_sweep_done(self, message: SweepDone) -> None:
        if not self.screen_stack:
            return
        self._empty_inbox()
        self.phase = "done"
        cohorts = self._base().query_one("#cohorts", Static)
        if message.error:
            cohorts.update(Text(f"sweep failed: {message.error}", style="bold red"))
            return
        self.result = message.result
        for h in message.result.hosts:
            self.hosts[h.host] = h
        from rocmdoctor.fleet.cohorts import render_cohorts

        text = render_cohorts(message.result.cohorts, limit=5).strip("\n")
        counts = ", ".join(f"{n} {s}" for s, n in message.result.counts().items() if n)
        cohorts.update(Text(f"{len(message.result.hosts)} host(s): {counts}\n" + (text or "no cohort: nothing failed")))
        self._redraw()
        self._table().move_cursor(row=0)   # the worst host, ready for Enter or d

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
            self._redraw()

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
        self._redraw()

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
