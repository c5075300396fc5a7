"""The rollout gate: may the next wave of a driver or kernel rollout start?

A rollout pipeline (Ansible `serial:` batches, a Slurm reboot wave, a GPU Operator upgrade) takes
a sweep before the upgrade (`--format json -o before.json`) and, after each wave, sweeps the
wave's hosts with `--baseline before.json --gate`. The gate compares host by host and stops the
rollout when a host newly fails or warns, became unreadable, lost a GPU, did not reach the
version the wave installs (`--expect kernel=...`), or changed something the wave did not intend.
Hosts that were already failing before the wave and fail the same way are not the wave's doing.
Pure comparison of two sweep documents (rocmdoctor.sweep/1): no I/O.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from rocmdoctor.errors import RocmdoctorError
from rocmdoctor.status import ExitStatus, State, exit_status_for, worst

#: fingerprint attributes `--expect` accepts (checks/fingerprint.yaml)
EXPECTABLE = ("kernel", "os", "amdgpu", "rocm", "gpu_model", "gpu_name", "gpu_count", "vbios", "firmware",
              "dkms", "container_runtime", "device_plugin")
#: an attribute that moves whenever one of these moves as intended (DKMS states name the kernel and
#: driver version; amdgpu-dkms and the kernel's linux-firmware ship the GPU firmware the driver loads)
FOLLOWS = {"dkms": ("kernel", "amdgpu", "rocm"), "firmware": ("kernel", "amdgpu")}
#: attributes whose value only the driver reports: gone when the driver is down (a consequence)
DRIVER_REPORTED = ("amdgpu", "gpu_name", "vbios", "firmware", "gpu_driven")
_ORDER = {State.PASS: 0, State.UNKNOWN: 1, State.WARN: 2, State.FAIL: 3}


@dataclass(frozen=True)
class Offence:
    host: str
    kind: str       # newly-failing | newly-warning | unreadable | not-in-baseline | lost-gpu | not-updated | drift
    state: State    # how it counts: fail, warn or unknown
    text: str
    drift: tuple[tuple[str, Any, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.host, "kind": self.kind, "state": self.state.value, "text": self.text,
                "drift": [{"attribute": a, "before": b, "after": c} for a, b, c in self.drift]}


@dataclass(frozen=True)
class Trigger:
    attribute: str
    before: Any
    after: Any
    stopped_with_it: int
    stopped: int
    moved: int           # hosts of the wave that made this move
    diagnosis: str

    @property
    def text(self) -> str:
        return (f"{self.attribute} {self.before} -> {self.after} on {self.stopped_with_it}/{self.stopped} stopped "
                f"host(s) ({self.stopped_with_it} of the {self.moved} host(s) that made this move)"
                + (f"; they fail with {self.diagnosis}" if self.diagnosis else ""))

    def to_dict(self) -> dict[str, Any]:
        return {"attribute": self.attribute, "before": self.before, "after": self.after,
                "stopped_with_it": self.stopped_with_it, "stopped": self.stopped, "moved": self.moved,
                "diagnosis": self.diagnosis, "text": self.text}


@dataclass(frozen=True)
class GateVerdict:
    baseline: str
    hosts: tuple[str, ...]
    expect: tuple[tuple[str, str], ...]
    offences: tuple[Offence, ...]
    trigger: Trigger | None = None

    @property
    def state(self) -> State:
        return worst([o.state for o in self.offences])

    @property
    def passed(self) -> bool:
        return not self.offences

    @property
    def exit_status(self) -> ExitStatus:
        return exit_status_for(self.state)

    @property
    def stopped_hosts(self) -> list[str]:
        return sorted({o.host for o in self.offences})

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "state": "pass" if self.passed else self.state.value,
                "exit_status": int(self.exit_status), "baseline": self.baseline, "hosts": len(self.hosts),
                "expect": dict(self.expect), "stopped_hosts": self.stopped_hosts,
                "offences": [o.to_dict() for o in self.offences],
                "trigger": self.trigger.to_dict() if self.trigger else None}


def parse_expect(items: Iterable[str] | None) -> tuple[tuple[str, str], ...]:
    """`--expect ATTR=VALUE` (repeatable) -> ((attr, value), ...); values are compared as text."""
    out: dict[str, str] = {}
    for item in items or ():
        attr, sep, value = item.partition("=")
        attr, value = attr.strip(), value.strip()
        if not sep or not attr or not value:
            raise RocmdoctorError(f"--expect {item!r}: not ATTRIBUTE=VALUE",
                                  "e.g. --expect kernel=6.8.0-45-generic --expect rocm=6.4.1")
        if attr not in EXPECTABLE:
            raise RocmdoctorError(f"--expect {item!r}: no fingerprint attribute {attr!r}",
                                  f"use one of: {', '.join(EXPECTABLE)}")
        if attr in out and out[attr] != value:
            raise RocmdoctorError(f"--expect {attr} given twice ({out[attr]!r} and {value!r})", "give each attribute once")
        out[attr] = value
    return tuple(out.items())


def _state(h: dict[str, Any]) -> State:
    try:
        return State(h.get("state", "unknown"))
    except ValueError:
        return State.UNKNOWN


#: the stack from the bottom up: a broken driver explains an invisible GPU, which explains a
#: container without GPUs; the lowest layer's diagnosis is named first
LAYERS = ("kernel-driver-mismatch", "gpu-hardware-fault", "gpu-not-visible", "thermal-throttling", "gpu-oom",
          "container-mount-failure")
_CONFIDENCE = {"high": 0, "medium": 1, "low": 2}


def _finding(h: dict[str, Any]) -> str:
    """The host's diagnoses, lowest layer first (else its first failing or warning check)."""
    diagnoses = sorted(h.get("diagnoses", []), key=lambda d: (
        _CONFIDENCE.get(d.get("confidence"), 3),
        LAYERS.index(d.get("runbook")) if d.get("runbook") in LAYERS else len(LAYERS)))
    if diagnoses:
        names = [f"{d.get('runbook')}/{d.get('id')}" for d in diagnoses]
        return names[0] + (f" (also {', '.join(names[1:3])}{', ...' if len(names) > 3 else ''})" if len(names) > 1 else "")
    for c in h.get("checks", []):
        if c.get("state") in ("fail", "warn"):
            return f"{c.get('runbook')}/{c.get('step')}: {' '.join(str(c.get('message', '')).split())[:120]}"
    return " ".join(str(h.get("message", "")).split())[:120]


def _count(fp: dict[str, Any], attr: str) -> int | None:
    v = fp.get(attr)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _host_offences(host: str, before: dict[str, Any] | None, now: dict[str, Any],
                   expect: dict[str, str]) -> list[Offence]:
    if not now.get("reachable", True):
        return [Offence(host, "unreadable", State.UNKNOWN,
                        f"not triaged ({now.get('reason') or 'error'}): {' '.join(str(now.get('message', '')).split())}")]
    if before is None:
        return [Offence(host, "not-in-baseline", State.UNKNOWN,
                        "not in the baseline sweep: nothing to compare with (sweep it before its upgrade)")]
    s0, s1 = _state(before), _state(now)
    fp0, fp1 = before.get("fingerprint") or {}, now.get("fingerprint") or {}
    drift = tuple((k, fp0.get(k), fp1.get(k)) for k in sorted(set(fp0) | set(fp1))
                  if fp0.get(k) != fp1.get(k) and k in fp0 and k in fp1)
    out: list[Offence] = []
    worse = _ORDER.get(s1, 1) > _ORDER.get(s0, 1)      # unknown before and warn now counts as worse
    if worse:
        kind = {State.FAIL: "newly-failing", State.WARN: "newly-warning"}.get(s1, "unreadable")
        what = _finding(now) if s1 != State.UNKNOWN else "its checks could not be evaluated: " + _finding(now)
        out.append(Offence(host, kind, s1, f"{s0.value} -> {s1.value}: {what}", drift))
    for attr, label in (("gpu_count", "on the PCI bus"), ("gpu_driven", "driven by amdgpu")):
        n0, n1 = _count(fp0, attr), _count(fp1, attr)
        if n0 is not None and n1 is not None and n1 < n0:
            out.append(Offence(host, "lost-gpu", State.FAIL, f"lost {n0 - n1} GPU(s) {label}: {n0} -> {n1}", drift))
    for attr, value in expect.items():
        have = fp1.get(attr)
        if str(have) != value:
            still = " (unchanged since the baseline: the update did not take)" if fp0.get(attr) == have else ""
            out.append(Offence(host, "not-updated", State.FAIL, f"expected {attr}={value}, runs {have}{still}", drift))
    consequences = worse and s1 == State.FAIL
    moved = {attr for attr, _, _ in drift} | set(expect)
    for attr, b, a in drift:
        if attr in expect or attr in ("gpu_count", "gpu_driven") or any(x in moved for x in FOLLOWS.get(attr, ())):
            continue    # intended, counted above, or carried along by a move reported on its own
        if consequences and attr in DRIVER_REPORTED + ("dkms",) and (a is None or b is None or attr == "dkms"):
            continue    # the driver went away with the failure reported above
        out.append(Offence(host, "drift", State.FAIL, f"unintended change: {attr} {b} -> {a} (not in --expect)", drift))
    return out


def _trigger(offences: list[Offence], now: dict[str, dict[str, Any]], before: dict[str, dict[str, Any]]) -> Trigger | None:
    """The move (attribute before -> after) most of the hosts stopped by a failure share."""
    stopped = {o.host for o in offences if o.kind in ("newly-failing", "lost-gpu", "newly-warning")}
    if not stopped:
        return None
    drift_of = {o.host: o.drift for o in offences if o.host in stopped}
    moves = Counter(m for h in stopped for m in set(drift_of.get(h, ())) if m[1] is not None and m[2] is not None)
    if not moves:
        return None
    priority = list(EXPECTABLE)
    (attr, b, a), n = sorted(moves.items(), key=lambda kv: (-kv[1], priority.index(kv[0][0])
                                                            if kv[0][0] in priority else len(priority)))[0]
    if n < 0.8 * len(stopped):
        return None
    moved = sum(1 for h, d in now.items() if h in before
                and (before[h].get("fingerprint") or {}).get(attr) == b and (d.get("fingerprint") or {}).get(attr) == a)
    diagnoses = Counter(_finding(now[h]).split(" (also ")[0] for h in stopped if h in now)
    return Trigger(attr, b, a, n, len(stopped), moved, diagnoses.most_common(1)[0][0] if diagnoses else "")


def evaluate_gate(baseline: str, before_doc: dict[str, Any], now_doc: dict[str, Any],
                  expect: tuple[tuple[str, str], ...] = ()) -> GateVerdict:
    before = {h["host"]: h for h in before_doc.get("hosts", []) if isinstance(h, dict) and "host" in h}
    now = {h["host"]: h for h in now_doc.get("hosts", []) if isinstance(h, dict) and "host" in h}
    wanted = dict(expect)
    offences = [o for host in sorted(now) for o in _host_offences(host, before.get(host), now[host], wanted)]
    return GateVerdict(baseline, tuple(sorted(now)), expect, tuple(offences), _trigger(offences, now, before))


def render_gate(v: GateVerdict, limit: int = 50) -> str:
    """The lines printed under the sweep table: the verdict, one line per stopped host, the trigger."""
    import shlex

    from rocmdoctor.fleet.hostlist import fold

    expect = " ".join(f"{a}={b}" for a, b in v.expect) or "no version change"
    if v.passed:
        return f"\nGate: PASS: {len(v.hosts)} host(s) as in the baseline ({v.baseline}), expecting {expect}"
    lines = ["", f"Gate: STOP ({v.state.value}): {len(v.stopped_hosts)} of {len(v.hosts)} host(s) "
                 f"{fold(v.stopped_hosts)} differ from the baseline ({v.baseline}), expecting {expect}"]
    by_host: dict[str, list[Offence]] = {}
    for o in v.offences:
        by_host.setdefault(o.host, []).append(o)
    for host in sorted(by_host, key=lambda h: (-max(_ORDER.get(o.state, 1) for o in by_host[h]), h))[:limit]:
        lines.append(f"  {host}: " + "; ".join(o.text for o in by_host[host]))
    if len(by_host) > limit:
        lines.append(f"  ... {len(by_host) - limit} more host(s) in --format json")
    if v.trigger:
        lines.append(f"  trigger: {v.trigger.text}")
        if v.trigger.attribute in ("kernel", "amdgpu", "rocm"):
            lines.append(f"  roll back: rocmdoctor rollback {shlex.quote(fold(v.stopped_hosts))} --baseline "
                         f"{shlex.quote(v.baseline)} --attribute {v.trigger.attribute} --dry-run")
    return "\n".join(lines)
