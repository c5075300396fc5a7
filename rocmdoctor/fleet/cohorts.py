"""Which failing hosts share a root cause, and what they have in common that healthy hosts do not.

After a sweep, hosts are grouped by (runbook, first diagnosis) of every runbook that failed or
warned on them; for each group every fingerprint attribute (kernel, OS, amdgpu, ROCm, GPU model,
VBIOS, DKMS state...) is compared between the group and the healthy hosts. An attribute
separates the group when nearly all of its hosts share one value that nearly no healthy host has
("37/37 failing hosts run kernel 6.8.0-45; 0/131 healthy do"): after a rollout that breaks a
batch of nodes, that value is the trigger. Pure counting over the results: no I/O, linear in the
number of hosts (measured in benchmarks/cohort_bench.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from rocmdoctor.status import State

#: attribute -> how a conclusion names a change of it
ATTRIBUTES: dict[str, str] = {
    "kernel": "the kernel update to {v}",
    "rocm": "the ROCm update to {v}",
    "amdgpu": "the amdgpu driver {v}",
    "dkms": "the DKMS state {v}",
    "os": "the OS release {v}",
    "vbios": "VBIOS {v}",
    "firmware": "GPU firmware {v}",
    "container_runtime": "container runtime {v}",
    "device_plugin": "the AMD device plugin {v}",
    "gpu_model": "GPU model {v}",
    "gpu_count": "{v} GPU(s) per node",
}
GROUP_SHARE = 0.8      # at least this share of the group has the value ...
HEALTHY_SHARE = 0.2    # ... and at most this share of the healthy hosts


@dataclass(frozen=True)
class Finding:
    attribute: str
    value: Any
    in_group: int
    group_size: int
    in_healthy: int
    healthy_size: int

    @property
    def text(self) -> str:
        return (f"{self.in_group}/{self.group_size} failing hosts have {self.attribute} {self.value}; "
                f"{self.in_healthy}/{self.healthy_size} healthy do")

    def to_dict(self) -> dict[str, Any]:
        return {"attribute": self.attribute, "value": self.value, "in_group": self.in_group,
                "group_size": self.group_size, "in_healthy": self.in_healthy, "healthy_size": self.healthy_size,
                "text": self.text}


@dataclass(frozen=True)
class Cohort:
    runbook: str
    diagnosis: str
    state: str
    hosts: tuple[str, ...]
    findings: tuple[Finding, ...] = field(default_factory=tuple)
    conclusion: str = ""

    def to_dict(self) -> dict[str, Any]:
        from rocmdoctor.fleet.hostlist import fold

        return {"runbook": self.runbook, "diagnosis": self.diagnosis, "state": self.state, "size": len(self.hosts),
                "hosts": fold(self.hosts), "findings": [f.to_dict() for f in self.findings],
                "conclusion": self.conclusion}


def _group_keys(h: Any) -> list[tuple[str, str, str]]:
    """(runbook, diagnosis or the failing step, state) of each runbook that failed or warned."""
    report = getattr(h, "report", None)
    if report is None:
        return []
    keys = []
    for rb in report.runbooks:
        if rb.state not in (State.FAIL, State.WARN):
            continue
        if rb.diagnoses:
            keys.append((rb.runbook_id, rb.diagnoses[0].diagnosis_id, rb.state.value))
        else:
            step = next((s.step_id for s in rb.steps if s.state == rb.state), "?")
            keys.append((rb.runbook_id, f"{step} ({rb.state.value}, no diagnosis)", rb.state.value))
    return keys


def _value(fp: dict[str, Any], attr: str) -> Any:
    v = fp.get(attr)
    return "none" if v in (None, "") else v


def analyse(hosts: Iterable[Any]) -> list[Cohort]:
    """Cohorts of a sweep's host results, largest first."""
    hosts = list(hosts)
    fps = {h.host: (getattr(getattr(h, "report", None), "fingerprint", None) or {}) for h in hosts}
    healthy = [h.host for h in hosts if h.reachable and h.state == State.PASS]
    healthy_counts = {a: Counter(_value(fps[n], a) for n in healthy) for a in ATTRIBUTES}
    groups: dict[tuple[str, str, str], list[str]] = {}
    for h in hosts:
        for key in _group_keys(h):
            groups.setdefault(key, []).append(h.host)
    out = []
    for (runbook, diagnosis, state), members in groups.items():
        findings = []
        for attr in ATTRIBUTES:
            counts = Counter(_value(fps[n], attr) for n in members)
            value, n = counts.most_common(1)[0]
            if value == "none":
                continue  # a missing value (driver not loaded: no version) is a consequence, not a trigger
            in_healthy = healthy_counts[attr].get(value, 0)
            if n >= GROUP_SHARE * len(members) and (not healthy or in_healthy <= HEALTHY_SHARE * len(healthy)):
                findings.append(Finding(attr, value, n, len(members), in_healthy, len(healthy)))
        findings.sort(key=lambda f: (-(f.in_group / f.group_size - (f.in_healthy / f.healthy_size if f.healthy_size else 0)),
                                     list(ATTRIBUTES).index(f.attribute)))
        out.append(Cohort(runbook, diagnosis, state, tuple(members), tuple(findings),
                          _conclusion(runbook, diagnosis, members, findings, len(healthy))))
    out.sort(key=lambda c: (c.state != "fail", -len(c.hosts), c.runbook, c.diagnosis))
    return out


def _conclusion(runbook: str, diagnosis: str, members: list[str], findings: list[Finding], healthy: int) -> str:
    n = len(members)
    if not findings:
        return (f"{n} host(s) with {runbook}/{diagnosis}: no fingerprint attribute separates them from the "
                f"{healthy} healthy host(s); look at the hosts themselves")
    top = findings[0]
    trigger = ATTRIBUTES[top.attribute].format(v=top.value)
    if not healthy:
        return f"{n} host(s) with {runbook}/{diagnosis}, all with {top.attribute} {top.value}; no healthy host to compare with"
    return f"{trigger} is the likely trigger of {runbook}/{diagnosis} on {n} host(s) ({top.text})"


def render_cohorts(cohorts: list[Cohort], limit: int = 10) -> str:
    """The lines printed under the sweep table."""
    from rocmdoctor.fleet.hostlist import fold

    if not cohorts:
        return ""
    lines = ["", "Cohorts (hosts that fail the same way, and what sets them apart):"]
    for c in cohorts[:limit]:
        lines.append(f"  {c.state.upper():4} {c.runbook}/{c.diagnosis}: {len(c.hosts)} host(s) {fold(c.hosts)}")
        for f in c.findings[:3]:
            lines.append(f"       {f.text}")
        lines.append(f"       => {c.conclusion}")
    if len(cohorts) > limit:
        lines.append(f"  ... {len(cohorts) - limit} more cohort(s) in --format json")
    return "\n".join(lines)
