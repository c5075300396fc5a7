"""A one-line note for the incident timeline (what users report, what you tried)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class NoteScreen(ModalScreen["str | None"]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", priority=True)]

    def compose(self) -> ComposeResult:
        with Vertical(id="note-dialog"):
            yield Label("Note for the incident timeline (Enter saves, Esc cancels):")
            yield Input(placeholder="e.g. users report hipErrorNoDevice since 02:10", id="note-input")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
