"""Kubernetes node-problem-detector custom-plugin mode.

NPD runs a plugin every `invoke_interval`, reads its exit status (0 OK,
1 NonOK, 2 Unknown) and keeps the first `max_output_length` bytes of stdout
(default 80) as the condition message. So: one line, the most important
finding first, cut at a UTF-8 character boundary within the limit.
A FAIL is NonOK; a WARN stays OK (with the warning in the message) because
a permanent NPD condition on a warning would taint nodes for soft issues;
UNKNOWN (unreachable, unreadable evidence) is Unknown.
"""

from __future__ import annotations

from typing import Any

from rocmdoctor.status import State

OK, NONOK, UNKNOWN = 0, 1, 2
MAX_OUTPUT = 80  # NPD pluginConfig.max_output_length default


def npd_status(sweep: Any) -> int:
    state = sweep.state
    if state == State.FAIL:
        return NONOK
    if state == State.UNKNOWN:
        return UNKNOWN
    return OK


def _first(sweep: Any, state: State) -> Any:
    return next((h for h in sweep.worst_first() if h.state == state), None)


def npd_message(sweep: Any, limit: int = MAX_OUTPUT) -> str:
    state = sweep.state
    many = len(sweep.hosts) > 1
    h = _first(sweep, state)
    if state in (State.PASS, State.SKIPPED) or h is None:
        text = f"rocmdoctor: healthy ({', '.join(sweep.runbooks) or 'all runbooks'})"
    else:
        label = {State.FAIL: "NonOK", State.WARN: "OK with warning", State.UNKNOWN: "Unknown"}[state]
        finding = f"{h.reason}: {h.message}" if h.reason else h.message
        text = f"{label}: {h.host + ': ' if many else ''}{finding}"
    return truncate(" ".join(text.split()), limit)


def truncate(text: str, limit: int) -> str:
    """At most `limit` bytes of UTF-8, never half a character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:max(0, limit - 3)].decode("utf-8", "ignore") + "..."
