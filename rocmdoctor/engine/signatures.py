"""Fold signature matches (engine/line_match.py) into runbook reports: which texts a plan matches,
how a line's reading stands against what the node's own checks found, and the one reading path
`explain`, `--log` and a triage share.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Iterable

from rocmdoctor.catalog.definitions import ContradictedReading
from rocmdoctor.catalog.status_codes import with_codes
from rocmdoctor.engine.line_match import CONFIDENCE_RANK, SignatureMatch, match_text
from rocmdoctor.evidence.probe import GatherSpec
from rocmdoctor.results import CheckResult, Diagnosis, Evidence, RunbookReport, StepResult
from rocmdoctor.status import State

if TYPE_CHECKING:
    from rocmdoctor.engine.compiler import Plan

#: the kernel-log gathers the driver and kernel checks already put in the probe
#: (checks/driver.yaml, checks/kernel.yaml): matched here at no extra cost
KERNEL_LOGS = ("command:dmesg", "command:journalctl -k -b --no-pager")
#: rocminfo's own output, read by the probe. Matched there: the runtime's status lines (hsa), the loader's
#: errors (loader) and rocminfo's refusals to start that no step parses (rocminfo-startup). The /dev/kfd errno
#: and group lines are not: runtime.rocminfo_errors reads them with the node's context, which a signature
#: lacks (root refused is not a group problem).
ROCMINFO = "command:rocminfo"
ROCMINFO_FAMILIES = ("hsa", "loader", "rocminfo-startup")
#: the runtime tools' own output the probe reads, and the families of their status lines: rocminfo's
#: runtime and loader errors; clinfo's OpenCL ICD loader errors and, since ROCm's OpenCL runs on ROCr,
#: the same runtime and loader lines (ROCr's "HSA Error: Incompatible kernel and userspace" goes to any
#: ROCr program's stderr, amd_topology.cpp)
TOOL_OUTPUTS = ((ROCMINFO, ROCMINFO_FAMILIES), ("command:clinfo", ("opencl", *ROCMINFO_FAMILIES)))
#: the signature families matched against what the probe itself reads, with no job log given
NODE_TEXT_FAMILIES = ("kernel", *(f for _, families in TOOL_OUTPUTS for f in families))


def match_logs(plan: "Plan", evidence: dict[str, Evidence]) -> tuple[list[SignatureMatch], list[tuple[str, str]]]:
    """Signature matches in the plan's job logs (every family), in the kernel log the probe
    read (kernel-line signatures only) and in its rocminfo output (the runtime's status
    signatures, as fallbacks), and (path, why unread) per job log."""
    matches: list[SignatureMatch] = []
    logs: list[tuple[str, str]] = []
    for path in plan.logs:
        ev = evidence.get(GatherSpec(kind="tail", target=path).key)
        if ev is None or ev.status != "ok" or not isinstance(ev.value, str):
            logs.append((path, (ev.reason or ev.status) if ev is not None else "not collected"))
            continue
        logs.append((path, ""))
        matches += match_text(plan.signatures, ev.value, path)
    kernel_sigs = [s for s in plan.signatures if s.family == "kernel"]
    for key in KERNEL_LOGS if kernel_sigs else ():
        ev = evidence.get(key)
        if ev is not None and ev.status == "ok" and isinstance(ev.value, dict) and ev.value.get("stdout"):
            matches += match_text(kernel_sigs, str(ev.value["stdout"]), ev.source)
            break  # dmesg, or the journal where dmesg is restricted: the same lines
    # rocminfo's and clinfo's lines: the runbooks' own checks read them first, so a match there only names
    # a cause where the runbook found none (a fallback), and routes to no runbook that was not asked for
    asked = {rb.id for rb in plan.runbooks}
    for key, families in TOOL_OUTPUTS:
        tool_sigs = [s for s in plan.signatures if s.family in families and s.runbook in asked]
        ev = evidence.get(key)
        if tool_sigs and ev is not None and ev.status == "ok" and isinstance(ev.value, dict):
            text = f"{ev.value.get('stdout', '')}\n{ev.value.get('stderr', '')}"
            matches += [replace(m, fallback=True) for m in match_text(tool_sigs, text, ev.source)]
    matches.sort(key=lambda m: CONFIDENCE_RANK.get(m.confidence, 9))  # stable: log order kept within a rank
    return matches, logs


def best_per_diagnosis(matches: Iterable[SignatureMatch]) -> list[SignatureMatch]:
    """One match per (runbook, diagnosis), the highest ranked, order kept."""
    seen: set[tuple[str, str]] = set()
    out = []
    for m in matches:
        key = (m.runbook, m.diagnosis)
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


def log_step(runbook_id: str, matches: list[SignatureMatch], logs: list[tuple[str, str]]) -> StepResult:
    """The step a runbook shows for the logs it was given: what matched, or why nothing.

    `logs`: (path, problem) per log; problem is "" when the log was read."""
    sources = tuple(f"tail -c 1M {path}" for path, _ in logs)
    unread = [f"{path}: {problem}" for path, problem in logs if problem]
    title = "Known error messages in the log"
    if matches:
        state = State.FAIL if any(m.severity == "critical" for m in matches) else State.WARN
        names = ", ".join(f"{m.signature_id}" + (f" x{m.count}" if m.count > 1 else "") for m in matches)
        message = f"{len(matches)} known error signature(s): {names}" + (f"; not read: {'; '.join(unread)}" if unread else "")
        outputs = {"matches": [m.to_dict() for m in matches]}
        quotes = tuple(dict.fromkeys(m.quote for m in matches))  # a line two signatures read, once
        check = CheckResult("log.signatures", title, state, message, quotes, outputs, sources)
        return StepResult(runbook_id, "log", title, check)
    read = ", ".join(path for path, problem in logs if not problem)
    if unread:
        # a log the user named and rocmdoctor could not read stays in sight, whatever the others held
        message = "; ".join(unread) + (f" (read, no {runbook_id} error signature: {read})" if read else "")
        check = CheckResult("log.signatures", title, State.UNKNOWN, message, (), {"matches": []}, sources)
        return StepResult(runbook_id, "log", title, check)
    return StepResult(runbook_id, "log", title, None, f"no {runbook_id} error signature in {read}")


def _confirming_step(report: RunbookReport, check_id: str, decided: bool = True) -> StepResult | None:
    """The step that ran the signature's confirming check on this node (by default only when it decided)."""
    for step in report.steps:
        c = step.check
        if check_id and c is not None and c.check_id == check_id and (c.state != State.UNKNOWN or not decided):
            return step
    return None


def _confirmed_on_node(report: RunbookReport, check_id: str, decided: bool = True) -> tuple[str, ...]:
    """What the signature's confirming check said on this node, as evidence lines: the
    node-side half of a diagnosis a log line made (nothing when it did not run)."""
    step = _confirming_step(report, check_id, decided)
    if step is None or step.check is None:
        return ()
    return (f"{step.step_id}: {step.check.message}", *step.check.evidence)


def _refutes(alt: ContradictedReading, m: SignatureMatch, report: RunbookReport) -> bool:
    """The reading's check ended in one of the reading's states (PASS unless it says), with the
    outputs the reading names equal and the ones it needs present."""
    step = _confirming_step(report, alt.check or m.confirm_check, decided=False)
    if step is None or step.check is None or step.check.state.value not in alt.states:
        return False
    outputs = step.check.outputs
    return (all(name in outputs and outputs[name] == value for name, value in alt.outputs)
            and all(outputs.get(name) not in (None, "", [], {}) for name in alt.present))


def _read_against_node(m: SignatureMatch, report: RunbookReport) -> SignatureMatch:
    """The match as the node reads it: the first `contradicted` reading whose check PASSED
    (with its outputs) refutes the line's usual reading, and the match then carries that
    reading, quoting that check as the node's word."""
    alt = next((a for a in m.instead if _refutes(a, m, report)), None)
    if alt is None:
        return m
    return replace(m, diagnosis=alt.diagnosis, means=alt.means, confidence=alt.confidence, cause_of=(), leaves_open=(),
                   severity=alt.severity or m.severity, commands=alt.commands or m.commands,
                   urls=(*m.urls, *alt.sources), confirm_check=alt.check or m.confirm_check,
                   quote_undecided="unknown" in alt.states)


def _rank_of_line_reading(diagnoses: list[Diagnosis], m: SignatureMatch, context: frozenset[str] = frozenset()) -> int:
    """Where a signature's own diagnosis goes among the runbook's: after them, except where a
    runbook diagnosis rests on the very line the signature read (its evidence quotes it, and
    nothing else) and is no surer: the catalogue's precise reading of a line then comes first; and
    except ahead of a diagnosis the signature names the cause of (`cause_of`) or one the runbook marks
    `context` (in `context`). A `fallback` (generic) signature never goes before a runbook's own cause, but
    goes before a `context` condition: the job's own failure is read first, the condition beside it."""
    if m.fallback:
        return next((i for i, d in enumerate(diagnoses) if d.diagnosis_id in context), len(diagnoses))
    mine = CONFIDENCE_RANK.get(m.confidence, 9)
    for i, d in enumerate(diagnoses):
        if d.diagnosis_id in m.cause_of:
            return i
        if d.diagnosis_id in context:
            return i  # a condition (the GPU is off AMD's list), not what broke: the line's own cause goes first
        if d.step_id == "log":
            continue  # another signature's reading, placed already in match_text's order (the more specific first)
        quotes = [m.line in ev for ev in d.evidence]
        # ... unless it rests on more than that line: the node's context refines the line's reading
        if any(quotes) and all(quotes) and mine <= CONFIDENCE_RANK.get(d.confidence, 9):
            return i
    return len(diagnoses)


def left_open(report: RunbookReport) -> tuple[str, ...]:
    """The causes the report's symptom lines leave open, likeliest first, each once (the log step's matches)."""
    step = report.steps[0] if report.steps and report.steps[0].step_id == "log" else None
    matches = step.check.outputs.get("matches", []) if step is not None and step.check is not None else []
    return tuple(dict.fromkeys(d for m in matches for d in m.get("leaves_open") or ()))


def fold_matches(report: RunbookReport, matches: list[SignatureMatch], logs: list[tuple[str, str]],
                 host: str = "<host>", context: frozenset[str] = frozenset()) -> RunbookReport:
    """The report with the log step first and the matches as diagnoses: a match whose
    diagnosis the runbook already made adds its quoted line to that diagnosis' evidence;
    another becomes a diagnosis of its own (after the ones node evidence made), quoting what
    the signature's confirming check found on the node when the runbook ran it; a
    `fallback` match only when the runbook found no cause at all (a `context` condition, such as a
    GPU off its release's list, is not one: the generic reading then goes before it). A symptom line
    (`leaves_open`) fails the log step but makes no diagnosis of its own: the causes it leaves open are
    listed instead (open_causes), unless the runbook already made its diagnosis from the node."""
    if host.startswith("bundle:"):
        host = "HOST"  # a bundle's label is not a target one can triage
    mine = [_read_against_node(m, report) for m in matches if m.runbook == report.runbook_id]
    step = log_step(report.runbook_id, mine, logs)
    diagnoses = list(report.diagnoses)
    own = any(d.diagnosis_id not in context for d in diagnoses)  # a condition (`context`) is not a cause found
    # a generic (fallback) signature after the precise ones the same log matched
    # and among the generic ones the surer first (a corrected PCIe error is weaker evidence than a failed ring test)
    for m in sorted(best_per_diagnosis(mine), key=lambda m: (m.fallback, CONFIDENCE_RANK.get(m.confidence, 9) if m.fallback else 0)):
        at = next((i for i, d in enumerate(diagnoses) if d.diagnosis_id == m.diagnosis), None)
        if at is not None:
            d = diagnoses[at]
            if m.quote not in d.evidence:
                diagnoses[at] = replace(d, evidence=with_codes((m.quote, *d.evidence)))
            continue
        if (m.fallback and own) or m.leaves_open:
            continue
        rank = _rank_of_line_reading(diagnoses, m, context)
        follow = (*(f"Confirm on the node: `{c}`" for c in m.commands),
                  f"`rocmdoctor triage {host} --runbook {m.runbook}` settles it on the node.")
        quoted = (m.quote, m.context_line) if m.context_line else (m.quote,)
        made = Diagnosis(report.runbook_id, m.diagnosis, "log", m.means, m.confidence,
                         with_codes((*quoted, *_confirmed_on_node(report, m.confirm_check, not m.quote_undecided))),
                         (), follow)
        diagnoses.insert(rank, made)
    return RunbookReport(report.runbook_id, report.title, (step, *report.steps), tuple(diagnoses))


def explain_text(text: str, source: str = "<text>", paths: Iterable[str] = ()) -> list[SignatureMatch]:
    """`rocmdoctor explain`: the catalogue (built-in plus --path dirs) against pasted text."""
    from rocmdoctor.catalog.loader import load_catalog

    return match_text(load_catalog(paths).signatures, text, source)
