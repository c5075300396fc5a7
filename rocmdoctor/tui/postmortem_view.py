"""Where the postmortem draft was written, and a preview of it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Markdown


class PostmortemScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "Close", priority=True), Binding("q", "close", "Close", show=False)]

    def __init__(self, path: str, markdown: str) -> None:
        super().__init__()
        self.path = path
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with Vertical(id="postmortem-dialog"):
            yield Label(Text(f"Postmortem draft written to {self.path}  (Esc closes)"), id="postmortem-path")
            with VerticalScroll():
                yield Markdown(self.markdown)

    def action_close(self) -> None:
        self.dismiss(None)
