"""The detail pane: everything about the selected tree node, as plain text
(node data is never parsed as markup: a hostile process name stays literal)."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from rocmdoctor.tui.model import FixView, StepView, TriageModel
from rocmdoctor.tui.styles import RISK_STYLE, state_badge
from rocmdoctor.tui.triage_tree import NodeRef


def _kv(key: str, value: str, style: str = "") -> Text:
    return Text.assemble((f"{key}: ", "bold"), (value, style))


def _fix_lines(fv: FixView, host: str) -> list[Text]:
    p = fv.plan
    out = [Text.assemble(("⚒ ", "bold"), (p.title, "bold"), "  ", (f"{p.risk} risk", RISK_STYLE.get(p.risk, ""))),
           Text.assemble("  $ ", (p.command, "bold")), Text(f"  on {host}" + (" with sudo" if p.sudo else ""))]
    if p.verify_check:
        out.append(Text(f"  verify: {p.verify_check}"))
    if p.rollback:
        out.append(Text(f"  rollback: {p.rollback}"))
    if fv.status == "proposed":
        out.append(Text("  press f to run it (after confirmation)", style="dim"))
    elif fv.status == "declined":
        out.append(Text(f"  declined by {fv.decided_by}" + (f": {fv.reason}" if fv.reason else ""), style="yellow"))
    elif fv.status == "running":
        out.append(Text(f"  approved by {fv.decided_by}; running…", style="cyan"))
    if fv.result is not None:
        r = fv.result
        status = "timed out" if r.timed_out else f"exit {r.exit_status}"
        out.append(Text(f"  ran: {status} in {r.duration_ms} ms (approved by {fv.decided_by})"))
        for line in (r.stdout + r.stderr).rstrip().splitlines()[-6:]:
            out.append(Text(f"    {line}", style="dim"))
    if fv.verify is not None:
        out.append(Text.assemble("  verify: ", state_badge(fv.verify.state, word=True), f" {fv.verify.message}"))
    return out


def _step_lines(model: TriageModel, view: StepView) -> list[Text]:
    out = [Text.assemble(state_badge(view.state, word=True), " ", (view.title, "bold")),
           _kv("check", view.check_id, "cyan")]
    if view.description:
        out.append(Text(view.description, style="italic"))
    r = view.result
    if view.state is None:
        out.append(Text("waiting for the node's answer…", style="cyan"))
    elif r is not None and r.check is None:
        out.append(_kv("skipped", r.skipped_because or "its condition did not hold"))
    elif r is not None and r.check is not None:
        out.append(Text(""))
        out.append(Text.assemble(state_badge(r.check.state), " ", r.check.message))
        for line in r.check.evidence:
            out.append(Text(f"  └ {line}", style="dim"))
    if view.verified is not None:
        out.append(Text.assemble("after the fix: ", state_badge(view.verified.state, word=True), " ",
                                 view.verified.message))
    for d in view.diagnoses:
        out += [Text(""), Text.assemble(("⇒ diagnosis", "bold cyan"), f" ({d.confidence} confidence)"),
                Text(f"  {d.cause}")]
        for line in d.evidence:
            out.append(Text(f"  └ {line}", style="dim"))
        for f in d.follow_up:
            out.append(Text(f"  follow-up: {f}", style="dim"))
    for fv in model.fixes_for(view.runbook_id, view.step_id):
        out += [Text(""), *_fix_lines(fv, model.host)]
    return out


class DetailPane(VerticalScroll):
    def compose(self):  # type: ignore[no-untyped-def]
        self.body = Static(id="detail-body")
        yield self.body

    def show(self, model: TriageModel, ref: NodeRef | None, *, incident: str = "", journal: str = "") -> None:
        lines: list[Text] = []
        if ref is None or ref.kind == "host":
            lines = [Text.assemble(state_badge(model.state, word=True), " ", (model.host, "bold")),
                     _kv("incident", incident), _kv("journal", journal)]
            if model.error:
                lines.append(Text(model.error, style="bold red"))
            if model.collected:
                c = model.collected
                lines.append(Text(f"evidence: {c.gathers} gathers, {c.unavailable} unavailable, "
                                  f"{c.round_trips} round trip(s), {c.duration_ms} ms"))
            counts: dict[str, int] = {}
            for rb in model.runbooks.values():
                for s in rb.steps.values():
                    key = s.state.symbol if s.state else "…"
                    counts[key] = counts.get(key, 0) + 1
            lines.append(Text("steps: " + "  ".join(f"{k} {v}" for k, v in counts.items())))
            for n in model.notes[-5:]:
                lines.append(Text(f"note ({n.author}): {n.text}", style="italic"))
        elif ref.kind == "runbook":
            rb = model.runbooks[ref.runbook_id]
            lines = [Text.assemble(state_badge(rb.state, word=True), " ", (rb.title, "bold")),
                     _kv("runbook", rb.id, "cyan"), Text(rb.summary, style="italic"), Text("")]
            lines += [Text.assemble(state_badge(s.state), f" {s.title}") for s in rb.steps.values()]
        elif ref.kind == "step":
            lines = _step_lines(model, model.runbooks[ref.runbook_id].steps[ref.step_id])
        elif ref.kind == "fix":
            fv = model.fixes.get((ref.runbook_id, ref.command))
            lines = _fix_lines(fv, model.host) if fv else [Text("no such remediation")]
        self.plain = "\n".join(t.plain for t in lines)  # what is shown, for tests and screen readers
        self.body.update(Group(*lines))
