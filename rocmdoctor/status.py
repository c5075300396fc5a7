"""States of a check and the process exit statuses.

Exit statuses follow the monitoring-plugin (Nagios) convention so that cron,
Slurm's HealthCheckProgram wrappers and monitoring agents can read them.
"""

from __future__ import annotations

from enum import Enum, IntEnum


class State(str, Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    UNKNOWN = "unknown"
    SKIPPED = "skipped"

    @property
    def symbol(self) -> str:
        """A symbol per state, so output reads on a monochrome terminal too."""
        return _SYMBOLS[self]

    @property
    def severity(self) -> int:
        """Order used for 'worst state': fail > warn > unknown > pass > skipped."""
        return _SEVERITY[self]


_SYMBOLS = {
    State.PASS: "✔",
    State.WARN: "▲",
    State.FAIL: "✖",
    State.UNKNOWN: "?",
    State.SKIPPED: "–",
}
_SEVERITY = {State.SKIPPED: 0, State.PASS: 1, State.UNKNOWN: 2, State.WARN: 3, State.FAIL: 4}


class ExitStatus(IntEnum):
    OK = 0
    WARNING = 1
    CRITICAL = 2
    UNKNOWN = 3
    # Bad input (malformed runbook, unknown host, bad option) exits 2 like
    # typer/click usage errors; it is an alias of CRITICAL by value.
    USAGE = 2
    INTERRUPTED = 130


def worst(states: "list[State] | tuple[State, ...]") -> State:
    """The worst of several states; no states at all counts as a pass."""
    return max(states, key=lambda s: s.severity, default=State.PASS)


def exit_status_for(state: State) -> ExitStatus:
    return {
        State.FAIL: ExitStatus.CRITICAL,
        State.WARN: ExitStatus.WARNING,
        State.UNKNOWN: ExitStatus.UNKNOWN,
    }.get(state, ExitStatus.OK)
