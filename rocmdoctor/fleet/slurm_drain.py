"""Drain unhealthy nodes in Slurm, and resume the ones rocmdoctor drained, as LBNL NHC does.

NHC's node-mark-offline reads the node's state and reason with `sinfo`,
leaves nodes that are down, or drained by someone else, alone, and drains
with `scontrol update State=DRAIN NodeName=... Reason="NHC: ..."`; its
node-mark-online only clears notes that begin with `NHC:`. rocmdoctor keeps
the same contract with its own prefix `rocmdoctor:`, so an operator's drain
is never overwritten or lifted. Every scontrol/sinfo call has a timeout
(a hung slurmctld must not wedge a HealthCheckProgram that Slurm kills after
60 s) and is written to the audit log. Commands are run as argv lists (no
shell); the audit log shows them shell-quoted.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Iterable

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.status import State

PREFIX = "rocmdoctor:"
LEVELS = {"critical": (State.FAIL,), "warning": (State.FAIL, State.WARN)}
REASON_MAX = 200
SLURM_TIMEOUT = 10.0

Runner = Callable[[list[str], float], "tuple[int | None, str, str]"]


def run_command(argv: list[str], timeout: float) -> tuple[int | None, str, str]:
    """(exit status or None on timeout/missing tool, stdout, stderr)."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout:g}s"
    except OSError as exc:
        return None, "", f"cannot run {argv[0]}: {exc.strerror or exc}"
    return p.returncode, p.stdout, p.stderr


@dataclass(frozen=True)
class NodeState:
    name: str
    state: str    # sinfo %T, e.g. idle, drained, draining, down*, mixed
    reason: str   # sinfo %E; "" when none

    @property
    def offline(self) -> bool:
        return self.state.startswith(("drain", "fail", "maint"))

    @property
    def down(self) -> bool:
        return self.state.startswith("down")

    @property
    def ours(self) -> bool:
        return self.reason.startswith(PREFIX)


@dataclass(frozen=True)
class DrainAction:
    node: str
    action: str         # drain | resume | skip | error
    message: str
    command: str = ""
    exit_status: int | None = None


def local_node_name() -> str:
    """The Slurm NodeName of this machine: slurmd's own, else the short host name (as NHC uses)."""
    return os.environ.get("SLURMD_NODENAME") or socket.gethostname().split(".")[0]


def drain_reason(host_state: State, finding: str) -> str:
    text = " ".join(f"{PREFIX} [node_problem] {host_state.value}: {finding or 'see rocmdoctor sweep'}".split())
    return text if len(text) <= REASON_MAX else text[:REASON_MAX - 1] + "…"


class SlurmDrainer:
    def __init__(self, *, audit: AuditLog | None = None, runner: Runner = run_command,
                 timeout: float = SLURM_TIMEOUT, sinfo: str = "sinfo", scontrol: str = "scontrol") -> None:
        self.audit = audit if audit is not None else AuditLog()
        self.runner = runner
        self.timeout = timeout
        self.sinfo = sinfo
        self.scontrol = scontrol

    def _run(self, node: str, argv: list[str], note: str) -> tuple[int | None, str, str]:
        start = time.monotonic()
        rc, out, err = self.runner(argv, self.timeout)
        self.audit.record(host=node, command=shlex.join(argv), exit_status=rc,
                          duration_ms=int((time.monotonic() - start) * 1000),
                          note=note if rc == 0 else f"{note} error: {err.strip()[:200]}")
        return rc, out, err

    def node_state(self, node: str) -> NodeState | str:
        """The node's state, or an error message."""
        rc, out, err = self._run(node, [self.sinfo, "--noheader", "--Node", f"--nodes={node}",
                                        "--format=%T|%E"], "slurm: read node state")
        if rc != 0:
            return f"sinfo failed: {err.strip() or f'exit {rc}'}"
        line = next((ln for ln in out.splitlines() if ln.strip()), "")
        if "|" not in line:
            return f"sinfo knows no node {node!r}"
        state, _, reason = line.partition("|")
        reason = reason.strip()
        return NodeState(node, state.strip().lower(), "" if reason.lower() == "none" else reason)

    def drain(self, node: str, reason: str) -> DrainAction:
        cur = self.node_state(node)
        if isinstance(cur, str):
            return DrainAction(node, "error", cur)
        if cur.down:
            return DrainAction(node, "skip", f"{node} is already {cur.state}; not touched")
        if cur.offline and not cur.ours:
            why = f"reason {cur.reason!r}" if cur.reason else "no reason"
            return DrainAction(node, "skip", f"{node} is {cur.state} by someone else ({why}); their note is kept")
        if cur.reason and not cur.ours:
            # NHC keeps an operator's note; the drain is then theirs too, so --resume leaves it
            reason = f"{cur.reason}; {reason}"[:REASON_MAX]
        argv = [self.scontrol, "update", f"NodeName={node}", "State=DRAIN", f"Reason={reason}"]
        rc, _, err = self._run(node, argv, "slurm: drain")
        if rc != 0:
            return DrainAction(node, "error", f"scontrol failed: {err.strip() or f'exit {rc}'}", shlex.join(argv), rc)
        return DrainAction(node, "drain", f"drained {node}: {reason}", shlex.join(argv), rc)

    def resume(self, node: str) -> DrainAction:
        cur = self.node_state(node)
        if isinstance(cur, str):
            return DrainAction(node, "error", cur)
        if not cur.ours:
            return DrainAction(node, "skip", f"{node} not drained by rocmdoctor ({cur.state}); left as is")
        argv = [self.scontrol, "update", f"NodeName={node}", "State=RESUME"]
        rc, _, err = self._run(node, argv, "slurm: resume (drained by rocmdoctor, now healthy)")
        if rc != 0:
            return DrainAction(node, "error", f"scontrol failed: {err.strip() or f'exit {rc}'}", shlex.join(argv), rc)
        return DrainAction(node, "resume", f"resumed {node} (was: {cur.reason})", shlex.join(argv), rc)


def apply(drainer: SlurmDrainer, hosts: Iterable[tuple[str, State, str, bool]], *, drain_on: str | None,
          resume: bool) -> list[DrainAction]:
    """hosts: (slurm node name, state, finding, reachable). Unreachable hosts are never touched."""
    actions = []
    levels = LEVELS[drain_on] if drain_on else ()
    for node, state, finding, reachable in hosts:
        if not reachable:
            continue  # can't tell the node from the network; slurmd's own health decides
        if state in levels:
            actions.append(drainer.drain(node, drain_reason(state, finding)))
        elif resume and state == State.PASS:
            actions.append(drainer.resume(node))
    return actions
