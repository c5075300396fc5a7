"""Errors a user can act on: each carries a one-line message and a hint.

The CLI prints these without a traceback and exits with `exit_status`.
"""

from __future__ import annotations

from rocmdoctor.status import ExitStatus


class RocmdoctorError(Exception):
    exit_status: ExitStatus = ExitStatus.USAGE

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class DefinitionError(RocmdoctorError):
    """A malformed check or runbook file, located by file and line."""

    def __init__(self, path: str, line: int | None, message: str, hint: str = "") -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}", hint)


class TargetError(RocmdoctorError):
    """A target that cannot be reached or resolved (unknown host, bad demo name)."""

    exit_status = ExitStatus.UNKNOWN


class ExpressionError(ValueError):
    """A rule or template expression failed to parse or evaluate. Defined here, not in
    catalog/expressions.py, so the compiler can catch it without importing Jinja2."""
