"""State -> symbol and colour, shared by the tree and the detail pane.

The symbol carries the meaning on a monochrome terminal; colour only helps.
"""

from __future__ import annotations

from rich.text import Text

from rocmdoctor.status import State

STYLE = {State.PASS: "green", State.WARN: "yellow", State.FAIL: "bold red", State.UNKNOWN: "magenta",
         State.SKIPPED: "dim"}
RUNNING_SYMBOL = "…"
RISK_STYLE = {"low": "green", "medium": "yellow", "high": "bold red"}


def state_badge(state: State | None, *, word: bool = False) -> Text:
    """'✖' (or '✖ FAIL'); None means not known yet: '…' (running)."""
    if state is None:
        return Text(RUNNING_SYMBOL + (" RUNNING" if word else ""), style="cyan")
    return Text(state.symbol + (f" {state.value.upper()}" if word else ""), style=STYLE[state])
