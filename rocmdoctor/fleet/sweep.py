"""Fleet sweeps: one compiled plan, run against many hosts by a bounded pool.

Guarantees a sweep keeps whatever the hosts do:
- at most `fanout` hosts are in flight (sshd MaxStartups, bastions and this
  machine's CPU all suffer from unbounded fan-out; measured on loopback, an
  unbounded pool failed up to 58% of 1000 hosts);
- each host gets min(`timeout`, time left before the deadline) for connect +
  probe; a watchdog declares a host that overruns it UNKNOWN and starts a
  replacement worker, so a wedged host costs one slot for one timeout, never
  the sweep; workers are daemon threads, nothing waits for a stuck one;
- every host ends as exactly one `HostResult`: a triaged host carries its
  verdicts, a host that could not be triaged is UNKNOWN with a reason code
  (refused, timeout, auth, host-key-changed, dropped, command-timeout, ...)
  and one line saying what happened.
"""

from __future__ import annotations

import functools
import os
import queue
import threading
import time
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

from rocmdoctor.fleet.inventory import HostSpec
from rocmdoctor.status import ExitStatus, State, exit_status_for, worst

#: seconds a host may overrun its budget before the watchdog gives up on it
#: (paramiko applies its timeout per stage, so connect can exceed it a little)
GRACE_S = 2.0
#: how often the watchdog looks for overdue hosts: an abandoned host is recorded within this of its budget + grace
WATCH_S = 0.2


@dataclass(frozen=True)
class CheckRow:
    runbook: str
    step: str
    check: str
    state: State
    message: str


@dataclass(frozen=True)
class HostResult:
    """One host's outcome. `reason` is empty when the host was triaged."""

    host: str
    state: State
    reason: str = ""
    message: str = ""
    duration_ms: int = 0
    round_trips: int = 0
    runbooks: tuple[tuple[str, State], ...] = ()
    checks: tuple[CheckRow, ...] = ()
    groups: tuple[str, ...] = ()
    report: Any = None  # the TriageReport (frozen) when triaged

    @property
    def exit_status(self) -> ExitStatus:
        return exit_status_for(self.state)

    @property
    def reachable(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class SweepResult:
    hosts: tuple[HostResult, ...]
    runbooks: tuple[str, ...]
    started_at: str
    duration_s: float
    fanout: int
    timeout: float
    deadline: float | None
    ssh_retries: int = 0
    #: what changed since a baseline sweep (--since last / --baseline), fleet/changes.py
    changes: Any = None
    #: the rollout gate's verdict against the baseline (--gate), fleet/gate.py
    gate: Any = None

    @property
    def state(self) -> State:
        return worst([h.state for h in self.hosts])

    @property
    def exit_status(self) -> ExitStatus:
        """With --gate the gate decides (a host failing before the wave does not stop it)."""
        return self.gate.exit_status if self.gate is not None else exit_status_for(self.state)

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in (State.PASS, State.WARN, State.FAIL, State.UNKNOWN)}
        for h in self.hosts:
            out[h.state.value] = out.get(h.state.value, 0) + 1
        return out

    def reasons(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for h in self.hosts:
            if h.reason:
                out[h.reason] = out.get(h.reason, 0) + 1
        return dict(sorted(out.items()))

    def worst_first(self) -> list[HostResult]:
        return sorted(self.hosts, key=lambda h: (-h.state.severity, h.host))

    @functools.cached_property
    def cohorts(self) -> list[Any]:
        """Failing hosts grouped by root cause, with what separates them (fleet/cohorts.py)."""
        from rocmdoctor.fleet.cohorts import analyse

        return analyse(self.hosts)


def unknown(spec: HostSpec, reason: str, message: str, start: float) -> HostResult:
    return HostResult(spec.name, State.UNKNOWN, reason, message,
                      int((time.monotonic() - start) * 1000), groups=spec.groups)


def from_report(spec: HostSpec, report: Any, duration_ms: int | None = None) -> HostResult:
    rows = tuple(CheckRow(rb.runbook_id, s.step_id, s.check.check_id if s.check else "", s.state,
                          s.check.message if s.check else s.skipped_because)
                 for rb in report.runbooks for s in rb.steps)
    bad = [r for r in rows if r.state == report.state and r.state != State.PASS]
    message = f"{bad[0].runbook}/{bad[0].step}: {bad[0].message}" if bad else ""
    took = report.duration_ms if duration_ms is None else duration_ms
    return HostResult(spec.name, report.state, "", message, took, report.round_trips,
                      tuple((rb.runbook_id, rb.state) for rb in report.runbooks), rows, spec.groups, report)


Opener = Callable[[HostSpec, float], Any]
PlanFor = Callable[[HostSpec], Any]


def triage_host(spec: HostSpec, plan_for: PlanFor, opener: Opener, budget: float) -> HostResult:
    """Connect, probe once, evaluate; every failure becomes an UNKNOWN with a reason."""
    from rocmdoctor.errors import RocmdoctorError
    from rocmdoctor.evidence.probe import build_probe, parse_probe_output, probe_timeout
    from rocmdoctor.engine.readings import ReadingStore
    from rocmdoctor.engine.triage import run_triage

    start = time.monotonic()
    end = start + budget
    transport = None
    try:
        plan = plan_for(spec)
        transport = opener(spec, max(0.1, budget))
        connect = getattr(transport, "connect", None)
        if connect is not None:
            connect()
        left = end - time.monotonic()
        if left <= 0:
            return unknown(spec, "timeout", f"connecting used the whole {budget:g}s budget", start)
        gathers = list(plan.gathers)
        probe = build_probe(gathers, root=transport.root, env=transport.env)
        limit = min(probe_timeout(gathers), left)
        result = transport.run("sh -s", timeout=limit, stdin=probe.script, mutating=False,
                               audit_note=f"sweep probe sha256={probe.sha256} gathers={len(gathers)}")
        if result.timed_out:
            return unknown(spec, "command-timeout",
                           f"the probe did not finish within {limit:.1f}s (host budget {budget:g}s)", start)
        evidence = parse_probe_output(probe, result)
        report = run_triage(transport, plan, target=spec.name, evidence=evidence, readings=ReadingStore())
        return from_report(spec, report, int((time.monotonic() - start) * 1000))
    except RocmdoctorError as exc:
        return unknown(spec, getattr(exc, "reason", "error"), exc.message, start)
    except Exception as exc:  # a sweep never crashes on one host; the reason says what broke
        if os.environ.get("ROCMDOCTOR_DEBUG"):
            traceback.print_exc()
        return unknown(spec, "internal", f"{type(exc).__name__}: {exc}", start)
    finally:
        if transport is not None:
            try:
                transport.close()
            except Exception:
                pass


class _Slot:
    """What one worker is doing, for the watchdog."""

    def __init__(self) -> None:
        self.spec: HostSpec | None = None
        self.started = 0.0
        self.budget = 0.0
        self.abandoned = False


def run_sweep(
    hosts: Sequence[HostSpec],
    *,
    plan_for: PlanFor,
    opener: Opener,
    fanout: int = 64,
    timeout: float = 60.0,
    deadline: float | None = None,
    runbooks: tuple[str, ...] = (),
    on_result: Callable[[HostResult, int, int], None] | None = None,
    retries: Callable[[], int] = lambda: 0,
) -> SweepResult:
    """Sweep `hosts`; returns when all have a result or the deadline (+grace) has passed."""
    from rocmdoctor.parsers import parser_names

    # Do the one-time work (parser registry, SSH modules, ssh_config) before the threads
    # start: done lazily, 64 threads would queue on import and set-up locks. One host
    # (`sweep local`, a health check) imports only the parsers its plan uses.
    if len(hosts) > 1:
        parser_names()
    prepare = getattr(opener, "prepare", None)
    if prepare is not None:
        prepare(hosts)
    t0 = time.monotonic()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    end_at = t0 + deadline if deadline else None
    todo: "queue.SimpleQueue[HostSpec]" = queue.SimpleQueue()
    for spec in hosts:
        todo.put(spec)
    results: dict[str, HostResult] = {}
    lock = threading.Lock()
    changed = threading.Event()
    slots: list[_Slot] = []

    def record(result: HostResult) -> None:
        with lock:
            if result.host in results:
                return
            results[result.host] = result
            done = len(results)
        changed.set()
        if on_result is not None:
            on_result(result, done, len(hosts))

    def worker(slot: _Slot) -> None:
        while not slot.abandoned:
            try:
                spec = todo.get_nowait()
            except queue.Empty:
                return
            now = time.monotonic()
            left = (end_at - now) if end_at else timeout
            if left <= 0:
                record(unknown(spec, "deadline", f"not started: the sweep deadline of {deadline:g}s passed", now))
                continue
            with lock:
                slot.spec, slot.started, slot.budget = spec, now, min(timeout, left)
            result = triage_host(spec, plan_for, opener, slot.budget)
            with lock:
                slot.spec = None
                if slot.abandoned:
                    return  # the watchdog already reported this host
            record(result)

    def spawn() -> None:
        slot = _Slot()
        slots.append(slot)
        threading.Thread(target=worker, args=(slot,), name="sweep-worker", daemon=True).start()

    with lock:
        for _ in range(max(1, min(fanout, len(hosts)))):
            spawn()
    while True:
        changed.wait(WATCH_S)
        changed.clear()
        now = time.monotonic()
        with lock:
            if len(results) >= len(hosts):
                break
            overdue = [s for s in slots if s.spec is not None and not s.abandoned
                       and now > s.started + s.budget + GRACE_S]
            for s in overdue:
                s.abandoned = True
        for s in overdue:
            assert s.spec is not None
            record(unknown(s.spec, "timeout", f"no answer within the host budget of {s.budget:g}s "
                                              f"(+{GRACE_S:g}s grace); abandoned", s.started))
            with lock:
                spawn()
        if end_at is not None and now > end_at + GRACE_S:
            break
    with lock:
        missing = [s for s in hosts if s.name not in results]
    for spec in missing:  # only after the deadline: still queued or wedged
        record(unknown(spec, "deadline", f"no result before the sweep deadline of {deadline:g}s", t0))
    ordered = tuple(results[s.name] for s in hosts)
    return SweepResult(ordered, runbooks, started_at, round(time.monotonic() - t0, 3), fanout, timeout,
                       deadline, retries())
