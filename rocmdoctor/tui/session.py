"""The TUI's connection to one node: the compiled plan, an open transport and
the incident journal, with the calls the workers make.

Why not `core.triage_target`: it opens and closes the transport per call, and
a demo node is materialised afresh on each open, so a fix would land on a copy
the next re-run never sees. The TUI keeps one transport for the session.
Every method here may block on the network and runs in a worker thread; the
caller serialises them (one command on a node at a time).
"""

from __future__ import annotations

from typing import Callable

from rocmdoctor.engine.core import TriageRequest
from rocmdoctor.engine.events import Event, EventSink
from rocmdoctor.incident.journal import Journal, incident_for_request
from rocmdoctor.results import RemediationPlan
from rocmdoctor.transports.base import Transport
from rocmdoctor.engine.readings import ReadingStore
from rocmdoctor.engine.triage import Decision, RemediationOutcome, TriageReport, apply_remediation, run_triage

TransportFactory = Callable[[TriageRequest], Transport]


def open_request_transport(request: TriageRequest) -> Transport:
    """The transport `core.triage_target` would use for this request."""
    from rocmdoctor.engine.core import open_transport

    return open_transport(request)


class IncidentSession:
    def __init__(self, request: TriageRequest, *, incidents_dir: str | None = None,
                 open_transport: TransportFactory = open_request_transport) -> None:
        from rocmdoctor.catalog.loader import load_catalog
        from rocmdoctor.engine.core import request_vars

        self.request = request
        # loading and compiling read only local files: done up front so a bad
        # runbook is a one-line error before the screen opens
        self.catalog = load_catalog(request.paths)
        from rocmdoctor.engine.compiler import compile_plan

        self.plan = compile_plan(self.catalog, request.runbooks, request_vars(request))
        self.journal: Journal = incident_for_request(request, front_end="tui", base=incidents_dir)
        self._open_transport = open_transport
        self.transport: Transport | None = None

    @property
    def host(self) -> str:
        return self.transport.host if self.transport else self.request.target

    def _sink(self, forward: EventSink) -> EventSink:
        def sink(event: Event) -> None:
            self.journal(event)
            forward(event)
        return sink

    def connect(self) -> Transport:
        if self.transport is None:
            self.transport = self._open_transport(self.request)
        return self.transport

    def triage(self, forward: EventSink, runbook_ids: tuple[str, ...] = ()) -> TriageReport:
        from rocmdoctor.engine.compiler import compile_plan
        from rocmdoctor.engine.core import request_vars

        transport = self.connect()
        # a bundle's ticket attachments are read as `triage --from` reads them (core.ticket_logs)
        bundle = getattr(transport, "bundle", None) if self.request.bundle else None
        if runbook_ids or bundle is not None:
            plan = compile_plan(self.catalog, list(runbook_ids or self.request.runbooks), request_vars(self.request, bundle))
        else:
            plan = self.plan
        readings = None if self.request.bundle else ReadingStore()
        return run_triage(transport, plan, target=self.request.target, fix=False, on_event=self._sink(forward),
                          readings=readings)

    def remediate(self, plan: RemediationPlan, decision: Decision, forward: EventSink) -> RemediationOutcome:
        """Journal the operator's decision; if approved, run the command and its verify check."""
        transport = self.connect()
        return apply_remediation(transport, self.plan, plan, lambda p, h: decision, self._sink(forward))

    def note(self, text: str, author: str | None = None) -> Event:
        return self.journal.note(text, host=self.host, author=author)

    def close(self) -> None:
        self.journal.close()
        if self.transport is not None:
            try:
                self.transport.close()
            except Exception:  # noqa: BLE001 - closing a dead connection must not mask the exit
                pass
