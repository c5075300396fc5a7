"""The one transport interface every front end and check goes through.

Subclasses implement `_exec`. The base class owns the things that must hold
for every transport alike: the audit log, dry-run (mutating commands are
echoed, not sent), timeouts on every command, and evidence collection as one
probe round trip.
"""

from __future__ import annotations

import abc
import time
from typing import TYPE_CHECKING, Callable, Mapping

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.results import CommandResult, Evidence

if TYPE_CHECKING:
    from rocmdoctor.evidence.probe import GatherSpec


class Transport(abc.ABC):
    #: short label used in output, audit log and journals
    host: str = "local"
    #: True for a transport that replays a captured bundle (it answers a ticket's evidence too)
    replays: bool = False

    def __init__(
        self,
        *,
        root: str = "",
        env: Mapping[str, str] | None = None,
        dry_run: bool = False,
        audit: AuditLog | None = None,
        sudo: bool = False,
    ) -> None:
        self.root = root.rstrip("/")
        self.env = dict(env or {})
        self.dry_run = dry_run
        self.audit = audit if audit is not None else AuditLog()
        self.sudo = sudo
        #: commands actually sent to the node (the probe counts as one)
        self.round_trips = 0
        #: called once by close(), e.g. to remove a demo node's temporary tree
        self.on_close: list[Callable[[], None]] = []

    # -- the interface ---------------------------------------------------
    def run(
        self,
        command: str,
        *,
        timeout: float,
        stdin: str | None = None,
        mutating: bool = True,
        sudo: bool = False,
        audit_note: str = "",
    ) -> CommandResult:
        """Run a shell command on the node.

        `mutating` commands are only echoed under dry-run (invoke's `dry`),
        so every caller gets check mode for free.
        """
        if self.dry_run and mutating:
            self.audit.record(host=self.host, command=command, exit_status=None,
                              duration_ms=0, dry_run=True, note=audit_note)
            return CommandResult(command=command, host=self.host, exit_status=0, dry_run=True)
        start = time.monotonic()
        try:
            result = self._exec(command, timeout=timeout, stdin=stdin, sudo=sudo or self.sudo)
        except Exception as exc:  # recorded, then re-raised for the caller to report
            self.audit.record(host=self.host, command=command, exit_status=None,
                              duration_ms=int((time.monotonic() - start) * 1000),
                              note=f"{audit_note} error: {exc}".strip())
            raise
        finally:
            self.round_trips += 1
        self.audit.record(host=self.host, command=command, exit_status=result.exit_status,
                          duration_ms=result.duration_ms, note=audit_note)
        return result

    def collect(self, gathers: "list[GatherSpec]", *, timeout: float | None = None) -> dict[str, Evidence]:
        """Gather all read-only evidence in one round trip (the compiled probe)."""
        from rocmdoctor.evidence.probe import build_probe, parse_probe_output, probe_timeout

        if not gathers:
            return {}
        probe = build_probe(gathers, root=self.root, env=self.env)
        limit = timeout if timeout is not None else probe_timeout(gathers)
        result = self.run(
            "sh -s",
            timeout=limit,
            stdin=probe.script,
            mutating=False,
            audit_note=f"probe sha256={probe.sha256} gathers={len(gathers)}",
        )
        return parse_probe_output(probe, result)

    def close(self) -> None:
        """Release connections and run the on_close hooks (once)."""
        hooks, self.on_close = self.on_close, []
        for hook in hooks:
            hook()

    def __enter__(self) -> "Transport":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- for subclasses ----------------------------------------------------
    @abc.abstractmethod
    def _exec(self, command: str, *, timeout: float, stdin: str | None, sudo: bool) -> CommandResult:
        """Send one command; must return (not raise) on non-zero exit and on timeout."""
