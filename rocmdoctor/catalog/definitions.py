"""Typed definitions of checks and runbooks, as loaded from YAML.

Validation lives in `schema.py`; these are the immutable results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rocmdoctor.evidence.probe import GatherSpec


@dataclass(frozen=True)
class GatherDef:
    name: str
    kind: str                     # file | glob | stat | command | env
    target: str | tuple[str, ...]  # may hold {{ vars.x }} templates
    parse: str | dict[str, Any] | None = None
    timeout: float = 10.0
    optional: bool = False
    tail: bool = False
    accept_rc: tuple[int, ...] | None = (0,)   # None: any exit status
    stream: str = "stdout"        # stdout | stderr | both (command parse input)
    #: another gather of the same check that can stand in for this one (dmesg / journalctl)
    alternative_to: str | None = None
    #: evidence a ticket or bundle often lacks: when it could not be collected (not in the
    #: bundle, unreadable), or could not be used (an exit status not accepted, text not in the
    #: parser's format), the check still runs with the value None; its rules decide what
    #: the other gathers prove without it (`ev.<name>.status` tells why it is None)
    partial: bool = False
    #: evidence only a ticket brings (a pasted table or log that stands in for sysfs): read from a
    #: bundle, never asked of a live node, where the check's other gathers always answer
    ticket: bool = False
    line: int | None = None


@dataclass(frozen=True)
class RuleDef:
    state: str
    message: str
    when: str | None = None
    evidence: tuple[str, ...] = ()
    line: int | None = None


@dataclass(frozen=True)
class CheckDef:
    id: str
    title: str
    description: str
    gathers: tuple[GatherDef, ...]
    rules: tuple[RuleDef, ...]
    outputs: tuple[tuple[str, str], ...] = ()
    requires_vars: tuple[str, ...] = ()
    path: str = ""
    line: int | None = None
    data: str = ""                # packaged data file (rocmdoctor/catalog/data/<name>.yaml) seen by rules as `data`
    #: outputs kept per host after a run; the next run's expressions see them as `previous`
    #: (None on the first run), so a counter can be judged by how it moved
    remember: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepDef:
    id: str
    check: str
    title: str = ""
    when: str | None = None
    line: int | None = None
    #: the steps `when` reads, found once when the runbook loads (parsing it per triage cost 18 ms)
    gates: frozenset[str] = frozenset()


@dataclass(frozen=True)
class DiagnosisDef:
    id: str
    step: str
    when: str
    cause: str
    confidence: str = "medium"
    evidence_from: tuple[str, ...] = ()
    remediations: tuple[str, ...] = ()
    follow_up: tuple[str, ...] = ()
    #: one read-only command that settles whether this cause holds, offered when the evidence
    #: cannot decide (its step UNKNOWN); plain text, not a template
    settle: str = ""
    #: a condition the cause arises under rather than the mechanism (the GPU is not on AMD's list for the
    #: release): a specific reading of a log line (a non-fallback signature) goes ahead of it
    context: bool = False
    line: int | None = None


@dataclass(frozen=True)
class RemediationDef:
    id: str
    title: str
    command: str
    risk: str = "medium"
    confirm: str = "yes"          # yes | typed
    sudo: bool = False
    timeout: float = 120.0
    verify: str | None = None
    rollback: str = ""
    line: int | None = None


@dataclass(frozen=True)
class RunbookDef:
    id: str
    title: str
    summary: str
    steps: tuple[StepDef, ...]          # in evaluation (dependency) order
    diagnoses: tuple[DiagnosisDef, ...]
    remediations: dict[str, RemediationDef] = field(default_factory=dict)
    vars: dict[str, Any] = field(default_factory=dict)
    version: str = "1"
    path: str = ""
    line: int | None = None
    #: what to do when every step passed but the symptom is still there (the next tool, not a guess)
    when_clear: tuple[str, ...] = ()


def resolve_gather(g: GatherDef, vars: dict[str, Any]) -> GatherSpec:
    """The concrete gather for a run: templates in targets filled from `vars`."""
    kind = "tail" if g.kind == "file" and g.tail else g.kind
    if not any("{" in a for a in (g.target if isinstance(g.target, tuple) else (g.target,))):
        return GatherSpec(kind=kind, target=g.target, timeout=g.timeout)  # nothing to fill: no Jinja2 import
    from rocmdoctor.catalog.expressions import render_text

    scope = {"vars": vars}
    if isinstance(g.target, tuple):
        target: str | tuple[str, ...] = tuple(render_text(a, scope) if "{" in a else a for a in g.target)
    else:
        target = render_text(g.target, scope) if "{" in g.target else g.target
    return GatherSpec(kind=kind, target=target, timeout=g.timeout)


@dataclass(frozen=True)
class ContextReading:
    """What a signature's line means instead when another line of the same text, within
    `within` lines of it, says so: a /dev/kfd EPERM is a device cgroup; after an `srun` that asked
    for no GPU it is Slurm's device constraint, not a container's (issue 41: read the lines
    around a match where they change its meaning). `line` is our pattern, checked like a
    signature's; `runbook` "" keeps the signature's own."""

    line: str
    anchors: tuple[str, ...]
    diagnosis: str
    means: str
    runbook: str = ""
    confidence: str = "medium"
    severity: str = ""
    commands: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    within: int = 50


@dataclass(frozen=True)
class ContradictedReading:
    """What a signature's line means instead when the node refutes its usual reading: a check
    PASSES on the node (a docker daemon says the host has no /dev/kfd while the host's amdgpu is
    loaded), so the line points at another cause. The refuting check is the signature's
    confirming one unless `check` names another (the PCI bus saying "not a GPU node" refutes a
    device plugin's "amdgpu driver unavailable"), and `outputs` narrows the PASS to the one that
    refutes (that check's outputs must equal these values: count 0, not any count)."""

    diagnosis: str
    means: str
    confidence: str = "medium"
    commands: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    check: str = ""
    outputs: tuple[tuple[str, Any], ...] = ()
    severity: str = ""             # "" keeps the signature's own
    #: the states of that check that apply (default: pass): an UNKNOWN override check that still
    #: names the forced target says what the job ran under, which is all the reading needs
    states: tuple[str, ...] = ("pass",)
    #: outputs of that check that must be set (not none, not empty) for the reading to apply
    present: tuple[str, ...] = ()


@dataclass(frozen=True)
class SignatureDef:
    """A real error message and what it means (signatures/*.yaml).

    `patterns` are our own regular expressions, checked at load time for shapes that
    backtrack catastrophically; `anchors` are literal pieces every line must contain
    before a pattern is even tried (a cheap `in` test on untrusted text)."""

    id: str
    family: str
    patterns: tuple[str, ...]
    anchors: tuple[tuple[str, ...], ...]   # per pattern: literals that must all occur
    ignore_case: tuple[bool, ...]
    means: str
    runbook: str
    diagnosis: str
    confidence: str = "medium"             # high | medium | low
    severity: str = "critical"             # critical | warning
    fallback: bool = False                 # only when the runbook found no cause of its own
    confirm_check: str = ""
    commands: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    path: str = ""
    line: int | None = None
    contradicted: tuple[ContradictedReading, ...] = ()   # the readings when the node refutes the line, first that applies
    context: tuple[ContextReading, ...] = ()   # the readings when a nearby line changes its meaning, first that applies
    #: a condition on the captured values that a regular expression cannot say without back-references
    #: (apt: the version wanted and the one installed are two builds of one upstream release)
    when: str = ""
    #: runbook diagnoses that name a symptom this line names the cause of (a device plugin's panic is why no
    #: GPU is allocatable): the line's reading then goes ahead of them instead of after
    cause_of: tuple[str, ...] = ()
    #: runbook diagnoses this line leaves open, most likely first: it shows the failure (HIP found no GPU), not
    #: which of them caused it, so alone it names no cause; the runbook lists these with their settle commands
    leaves_open: tuple[str, ...] = ()
