"""A virtual host table for the fleet view: only the lines on screen are ever rendered.

Written instead of Textual's DataTable because a measurement said so (benchmarks/fleet_tui_bench.py,
docs/benchmarks.md): DataTable measures every cell of every row it is given through Rich and
renders each visible cell through Rich's padding machinery, so re-ordering 1,000 hosts cost
150-250 ms per key on the 2-core CI machine, and `remove_row` is linear in the row count. Here a row
is a tuple of plain strings with one style each, column widths come from `cell_len`, and a line is
one Strip built on demand: sorting or filtering thousands of rows is a list operation plus one
screen of lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

GAP = 2   # spaces between columns


@dataclass(frozen=True)
class Column:
    key: str
    max_width: int = 60   # longer values are cut with '…' (the host's own tree shows them whole)


class HostTable(ScrollView, can_focus=True):
    """Rows keyed by host name; a fixed header line; a row cursor that Enter selects."""

    DEFAULT_CSS = """
    HostTable { height: 1fr; }
    HostTable > .host-table--header { text-style: bold; background: $panel; }
    HostTable > .host-table--cursor { background: $accent; text-style: bold; }
    HostTable > .host-table--odd { background: $surface-lighten-1; }
    """
    COMPONENT_CLASSES = {"host-table--header", "host-table--cursor", "host-table--odd"}
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False), Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", show=False), Binding("pagedown", "page(1)", show=False),
        Binding("home", "edge(0)", show=False), Binding("end", "edge(1)", show=False),
        Binding("enter", "select", "Host", show=False),
    ]
    cursor_row: reactive[int] = reactive(0, always_update=True)

    class Selected(Message):
        """Enter (or a click on the row under the cursor) on a host row."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, columns: Sequence[Column], *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.columns = tuple(columns)
        self._keys: list[str] = []
        self._rows: list[tuple[Text, ...]] = []
        self._widths = [cell_len(c.key) for c in self.columns]
        self._measured: dict[str, tuple[tuple[Text, ...], tuple[int, ...]]] = {}

    # -- data -----------------------------------------------------------------
    @property
    def row_keys(self) -> list[str]:
        return list(self._keys)

    @property
    def row_count(self) -> int:
        return len(self._keys)

    @property
    def cursor_key(self) -> str | None:
        return self._keys[self.cursor_row] if 0 <= self.cursor_row < len(self._keys) else None

    def set_rows(self, rows: Sequence[tuple[str, tuple[Text, ...]]], *, keep_cursor: bool = True) -> None:
        """Replace every row (already sorted and filtered by the caller); the cursor follows its host."""
        selected = self.cursor_key if keep_cursor else None
        self._keys = [k for k, _ in rows]
        self._rows = [cells for _, cells in rows]
        widths = [cell_len(c.key) for c in self.columns]
        measured, cache = {}, self._measured
        for key, cells in rows:
            hit = cache.get(key)
            if hit is None or hit[0] is not cells:        # a row's cells are measured once
                hit = (cells, tuple(cell_len(cell.plain) for cell in cells))
            measured[key] = hit
            for i, w in enumerate(hit[1]):
                if w > widths[i]:
                    widths[i] = w
        self._measured = measured
        self._widths = [min(w, c.max_width) for w, c in zip(widths, self.columns)]
        size = Size(sum(self._widths) + GAP * len(self._widths), len(self._keys) + 1)
        if size != self.virtual_size:      # a new size re-lays out the whole screen: only when it changed
            self.virtual_size = size
        row = self._keys.index(selected) if selected in self._keys else 0
        self.cursor_row = min(row, max(0, len(self._keys) - 1))
        self.refresh()

    def move_to(self, key: str) -> None:
        if key in self._keys:
            self.cursor_row = self._keys.index(key)

    # -- rendering --------------------------------------------------------------
    def watch_cursor_row(self, row: int) -> None:
        """Keep the cursor on screen (line 0 is the header)."""
        top, height = int(self.scroll_y), max(1, self.scrollable_content_region.height - 1)
        if row < top:
            self.scroll_to(y=row, animate=False)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        if y == 0:
            style = self.get_component_rich_style("host-table--header")
            strip = self._strip([Text(c.key) for c in self.columns], style, header=True)
        else:
            index = scroll_y + y - 1
            if index >= len(self._rows):
                return Strip.blank(width, self.rich_style)
            if index == self.cursor_row and self.has_focus:
                style = self.get_component_rich_style("host-table--cursor")
            elif index % 2:
                style = self.rich_style + self.get_component_rich_style("host-table--odd")
            else:
                style = self.rich_style
            strip = self._strip(self._rows[index], style, cursor=index == self.cursor_row)
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width, style)

    def _strip(self, cells: Sequence[Text], base: Style, *, header: bool = False, cursor: bool = False) -> Strip:
        segments = []
        for cell, width in zip(cells, self._widths):
            plain = cell.plain if cell_len(cell.plain) <= width else set_cell_size(cell.plain, width - 1) + "…"
            style = base if header or cursor else base + Style.parse(str(cell.style)) if cell.style else base
            segments.append(Segment(set_cell_size(plain, width) + " " * GAP, style))
        return Strip(segments)

    # -- keys and mouse -----------------------------------------------------------
    def action_cursor(self, delta: int) -> None:
        if self._keys:
            self.cursor_row = max(0, min(len(self._keys) - 1, self.cursor_row + delta))

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(1, self.scrollable_content_region.height - 1))

    def action_edge(self, end: int) -> None:
        if self._keys:
            self.cursor_row = len(self._keys) - 1 if end else 0

    def action_select(self) -> None:
        if self.cursor_key is not None:
            self.post_message(self.Selected(self.cursor_key))

    def on_click(self, event: events.Click) -> None:
        index = int(self.scroll_y) + event.y - 1
        if 0 <= index < len(self._keys):
            if index == self.cursor_row and event.chain > 1:
                self.action_select()
            self.cursor_row = index

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


class StatusLine(Widget):
    """One line of the sweep's state (host count, sort, filter, phase) above the table.

    Not the Header's sub-title nor a Static: both re-lay the whole screen out on every change
    (a Static's update may change its size), 20-40 ms with 1,000 hosts on the 2-core CI machine,
    and the count changes with every batch of results. This widget has a fixed size, so a new
    text is only a repaint of its one line.
    """

    DEFAULT_CSS = "StatusLine { height: 1; width: 1fr; color: $text-muted; }"
    text: reactive[str] = reactive("", layout=False)

    def render(self) -> Text:
        return Text(self.text, no_wrap=True, overflow="ellipsis")

