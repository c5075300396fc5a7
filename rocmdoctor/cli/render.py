"""Human-readable triage output: a tree of runbooks and steps, each with its
state symbol (readable without colour), message, evidence, diagnoses and
the exact remediation commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rocmdoctor.status import State

NOT_IN_BUNDLE = "not in bundle"  # the reason transports/replay.py gives for absent evidence

if TYPE_CHECKING:
    from rich.console import Console

    from rocmdoctor.results import Diagnosis, RunbookReport, StepResult
    from rocmdoctor.engine.triage import TriageReport

STYLE = {State.PASS: "green", State.WARN: "yellow", State.FAIL: "bold red",
         State.UNKNOWN: "magenta", State.SKIPPED: "dim"}
LABEL = {State.PASS: "OK", State.WARN: "WARNING", State.FAIL: "CRITICAL", State.UNKNOWN: "UNKNOWN",
         State.SKIPPED: "OK"}


def state_text(state: State) -> str:
    return f"[{STYLE[state]}]{state.symbol} {state.value.upper():7}[/]"


def print_report(console: "Console", report: "TriageReport", *, verbose: bool = False) -> None:
    """Worst runbook first (diagnosed ones first among equals); within a runbook, failing steps with their evidence and
    diagnoses, and passing steps folded into a count (all shown with --verbose)."""
    from rich.markup import escape

    st = report.state
    console.print(f"[bold]{escape(report.target)}[/]  [{STYLE[st]}]{st.symbol} {LABEL[st]}[/]  "
                  f"[dim]({report.round_trips} round trip{'s' if report.round_trips != 1 else ''}, "
                  f"{report.duration_ms / 1000:.2f}s)[/]")
    _print_runbooks(console, report.runbooks, verbose=verbose)
    _print_remediations(console, report)
    if report.after is not None:
        console.print()
        console.print(f"[bold]After remediation[/] (triaged again): [{STYLE[st]}]{st.symbol} {LABEL[st]}[/]")
        _print_runbooks(console, report.after, verbose=verbose, diagnoses=True)


def _print_runbooks(console: "Console", runbooks: "tuple[RunbookReport, ...] | list[RunbookReport]", *,
                    verbose: bool, diagnoses: bool = True) -> None:
    from rich.markup import escape

    shown: dict[str, str] = {}  # check id -> runbook where its evidence was printed
    said: set[str] = set()
    for rb in sorted(runbooks, key=lambda r: (-r.state.severity, -len(r.diagnoses))):
        console.print()
        reasons = [_without_hint(r) if r in said else r for r in _why_quiet(rb)]  # a hint once
        said.update(_why_quiet(rb))
        counts = "; ".join(reasons) or _counts(rb.steps)
        console.print(f"{state_text(rb.state)} [bold]{escape(rb.runbook_id)}[/]  {escape(rb.title)}  [dim]{counts}[/]")
        by_step: dict[str, list["Diagnosis"]] = {}
        for d in rb.diagnoses:
            by_step.setdefault(d.step_id, []).append(d)
        folded = 0
        not_in_bundle: list[str] = []
        # worst first, so the failing step and its diagnosis lead; step order within a state
        for step in sorted(rb.steps, key=lambda s: -s.state.severity):
            # a step that carries a diagnosis is printed whatever its state: the diagnosis may rest
            # on another step's evidence (a ticket's install log names what `dkms status` would)
            if step.check is not None and step.check.state == State.UNKNOWN and NOT_IN_BUNDLE in step.check.message \
                    and not verbose and step.step_id not in by_step:
                not_in_bundle.append(_missing_source(step.check.message, step.check.sources))
                continue
            if step.check is None:
                if verbose or step.step_id in by_step:
                    console.print(f"    {state_text(State.SKIPPED)} {escape(step.step_id)}: "
                                  f"[dim]{escape(step.skipped_because)}[/]")
                for d in by_step.get(step.step_id, []) if diagnoses else ():
                    _print_diagnosis(console, d)
                continue
            c = step.check
            if c.state == State.PASS and not verbose and step.step_id not in by_step:
                folded += 1
                continue
            if c.check_id in shown:  # a check shared by several runbooks: its evidence once
                console.print(f"    {state_text(c.state)} {escape(c.title)} [dim](as in {escape(shown[c.check_id])} above)[/]")
            else:
                shown[c.check_id] = rb.runbook_id
                console.print(f"    {state_text(c.state)} {escape(c.title)}: {escape(c.message)}")
                if c.state != State.PASS or verbose:
                    for line in c.evidence[:8]:
                        console.print(f"              [dim]└ {escape(line)}[/]")
            for d in by_step.get(step.step_id, []) if diagnoses else ():
                _print_diagnosis(console, d)
        if folded and rb.state != State.PASS:
            console.print(f"    [dim]{State.PASS.symbol} {folded} other check{'s' if folded != 1 else ''} passed[/]")
        if not_in_bundle:
            wanted = list(dict.fromkeys(_by_hand(w) for w in not_in_bundle))
            console.print(f"    [dim]{State.UNKNOWN.symbol} {len(wanted)} piece{'s' if len(wanted) != 1 else ''} of evidence "
                          f"not in the bundle; on the node: {escape('; '.join(wanted[:6]))}"
                          f"{' ...' if len(wanted) > 6 else ''} (-v lists them)[/]")
        if rb.when_clear:
            console.print("    Nothing here explains it; if the symptom remains:")
            for line in rb.when_clear:
                console.print(f"      - {escape(line)}")
        if rb.open_causes:
            console.print("    The evidence shows the failure, not its cause; the likely causes, most likely first, each with the command "
                          "that settles it:" if rb.state in (State.FAIL, State.WARN) else
                          "    Not decided by this evidence; the causes still open, each with the command that settles it:")
            for i, c in enumerate(rb.open_causes[:8], 1):
                console.print(f"      {i}. {escape(c.diagnosis_id)}: [bold]{escape(c.settle)}[/]")
            if len(rb.open_causes) > 8:
                console.print(f"      ... {len(rb.open_causes) - 8} more in --format json")


def _print_remediations(console: "Console", report: "TriageReport") -> None:
    from rich.markup import escape

    if report.remediations:
        console.print()
        console.print("[bold]Remediations[/]")
        for o in report.remediations:
            p = o.plan
            if o.result is None:
                console.print(f"    [dim]– not run[/] {escape(p.title)}: {escape(o.decision.reason or 'declined')}")
                console.print(f"        [dim]$ {escape(p.command)}[/]")
                continue
            if o.result.dry_run:
                console.print(f"    [cyan]dry-run[/] {escape(p.title)}\n        $ {escape(p.command)}")
                continue
            ok = "[green]✔ fixed[/]" if o.fixed else ("[red]✖ not fixed[/]" if o.verify else
                                                     f"exit {o.result.exit_status}")
            console.print(f"    {ok} {escape(p.title)} (approved by {escape(o.decision.by)})")
            console.print(f"        $ {escape(p.command)}  [dim]→ exit {o.result.exit_status}, "
                          f"{o.result.duration_ms} ms[/]")
            if o.verify:
                console.print(f"        verify: {state_text(o.verify.state)} {escape(o.verify.message)}")
    elif any(d.remediations for rb in report.runbooks for d in rb.diagnoses):
        console.print()
        console.print("[dim]Nothing was changed. Run again with --fix to be offered each remediation "
                      "(--dry-run to print the plan).[/]")


def _why_quiet(rb: "RunbookReport") -> list[str]:
    """A runbook that passed because its first steps found nothing to look at (no AMD
    GPU on the PCI bus, not in a container) says so, instead of "1 pass, 9 skipped"."""
    if rb.state != State.PASS or not any(s.check is None for s in rb.steps):
        return []
    gating = [s for s in rb.steps if s.check is not None and s.check.state == State.PASS
              and any(f"steps.{s.step_id}." in o.skipped_because for o in rb.steps if o.check is None)]
    return [s.check.message for s in gating if s.check is not None and s.check.message]


def _missing_source(message: str, sources: "tuple[str, ...]") -> str:
    """The command a "`cat /proc/modules`: not in bundle" message names (engine/evaluate.py's form)."""
    head, sep, _ = message.partition(f": {NOT_IN_BUNDLE}")
    if sep and head.startswith("`") and head.endswith("`"):
        return head[1:-1]
    return sources[0] if sources else message


def _without_hint(message: str) -> str:
    """Drop a trailing "(pass --var ...)"-style hint from a message."""
    head, sep, tail = message.rpartition(" (")
    return head if sep and "--" in tail and tail.endswith(")") else message


def _counts(steps: "tuple[StepResult, ...]") -> str:
    n: dict[State, int] = {}
    for s in steps:
        n[s.state] = n.get(s.state, 0) + 1
    order = (State.FAIL, State.WARN, State.UNKNOWN, State.PASS, State.SKIPPED)
    return ", ".join(f"{n[s]} {s.value}" for s in order if n.get(s))


def _by_hand(source: str) -> str:
    """A gather's hand command, or for rocmdoctor's own probe scripts (`sh -c SCRIPT rocmdoctor-NAME`)
    their name: a screenful of shell helps nobody reading a ticket; `rocmdoctor capture` runs it."""
    last = source.rsplit(" ", 1)[-1]
    if source.startswith("sh -c ") and last.startswith("rocmdoctor-"):
        return f"the {last} script (rocmdoctor capture HOST runs it)"
    return source


def _print_diagnosis(console: "Console", d: "Diagnosis") -> None:
    from rich.markup import escape

    console.print(f"              [bold cyan]⇒ diagnosis[/] ({d.confidence} confidence): {escape(d.cause)}")
    if d.step_id == "log":  # a log line's diagnosis: its node-side evidence sits in a step folded as passed
        for line in d.evidence[1:7]:
            console.print(f"                [dim]on the node: {escape(line)}[/]")
    for p in d.remediations:
        console.print(f"                [bold]fix[/] [{_risk(p.risk)}]{p.risk} risk[/]: {escape(p.title)}")
        console.print(f"                  $ {escape(p.command)}")
        extra = []
        if p.verify_check:
            extra.append(f"verify: {p.verify_check}")
        if p.rollback:
            extra.append(f"rollback: {p.rollback}")
        if extra:
            console.print(f"                  [dim]{escape(' · '.join(extra))}[/]")
    for f in d.follow_up:
        console.print(f"                [dim]follow-up: {escape(f)}[/]")


def _risk(risk: str) -> str:
    return {"low": "green", "medium": "yellow", "high": "bold red"}.get(risk, "white")
