"""The triage tree: host -> runbooks -> steps -> proposed fixes.

Labels are rebuilt from the TriageModel whenever an event changes a step, so
the tree is only ever a view (the model holds the state).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Tree
from textual.widgets._tree import TreeNode

from rocmdoctor.status import State
from rocmdoctor.tui.model import TriageModel
from rocmdoctor.tui.styles import RISK_STYLE, state_badge


@dataclass(frozen=True)
class NodeRef:
    kind: str                 # host | runbook | step | fix
    runbook_id: str = ""
    step_id: str = ""
    command: str = ""         # kind == fix: the remediation's exact command


class TriageTree(Tree[NodeRef]):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, model: TriageModel, **kwargs: object) -> None:
        super().__init__("", NodeRef("host"), **kwargs)  # type: ignore[arg-type]
        self.guide_depth = 3  # narrower indents: step titles fit better at 80 columns
        self.model = model
        self._runbooks: dict[str, TreeNode[NodeRef]] = {}
        self._steps: dict[tuple[str, str], TreeNode[NodeRef]] = {}

    def on_mount(self) -> None:
        self.root.expand()
        self._add_runbooks(list(self.model.runbooks.values()), collapse_passing=False)

    def _add_runbooks(self, runbooks: list, *, collapse_passing: bool) -> None:  # type: ignore[type-arg]
        self.root.remove_children()
        self._runbooks.clear()
        self._steps.clear()
        for rb in runbooks:
            passed = collapse_passing and rb.state == State.PASS
            rb_node = self.root.add("", NodeRef("runbook", rb.id), expand=not passed)
            self._runbooks[rb.id] = rb_node
            for s in rb.steps.values():
                self._steps[(rb.id, s.step_id)] = rb_node.add("", NodeRef("step", rb.id, s.step_id),
                                                              allow_expand=False)
        self.refresh_all()

    def order_by_state(self) -> None:
        """Once the triage is done: failing and warning runbooks first and open, passing ones
        closed to one line with their count (issue 43), so the failing steps of a later
        runbook are on the first screen of an 80x24 terminal."""
        rank = {State.FAIL: 0, State.WARN: 1, State.UNKNOWN: 2, State.PASS: 4}
        order = sorted(self.model.runbooks.values(), key=lambda rb: rank.get(rb.state, 3) if rb.state else 3)
        self._add_runbooks(order, collapse_passing=True)

    def select_first_problem(self) -> bool:
        """Put the cursor on the first failing (else warning/unknown) step, so a newcomer lands on it."""
        for wanted in ("fail", "warn", "unknown"):
            for (rb_id, step_id), node in self._steps.items():
                state = self.model.runbooks[rb_id].steps[step_id].state
                if state is not None and state.value == wanted:
                    self.move_cursor(node)
                    return True
        return False

    def refresh_all(self) -> None:
        self.refresh_steps([(rb.id, s.step_id) for rb in self.model.runbooks.values() for s in rb.steps.values()])

    def refresh_steps(self, changed: list[tuple[str, str | None]]) -> None:
        for rb_id, step_id in changed:
            if step_id is not None and (rb_id, step_id) in self._steps:
                self._refresh_step(rb_id, step_id)
        for rb_id, node in self._runbooks.items():
            rb = self.model.runbooks[rb_id]
            label = Text.assemble(state_badge(rb.state), " ", (rb.id, "bold"))
            if rb.state == State.PASS and not node.is_expanded:
                passed = sum(1 for s in rb.steps.values() if s.state == State.PASS)
                other = len(rb.steps) - passed
                label.append(f" ({passed} passed" + (f", {other} not applicable" if other else "") + ")", style="dim")
            node.set_label(label)
        m = self.model
        phase = {"connecting": " connecting…", "collecting": " collecting…", "error": " error"}.get(m.phase, "")
        self.root.set_label(Text.assemble(state_badge(m.state), " ", (m.host, "bold"), (phase, "dim")))

    def _refresh_step(self, rb_id: str, step_id: str) -> None:
        view = self.model.runbooks[rb_id].steps[step_id]
        node = self._steps[(rb_id, step_id)]
        label = Text.assemble(state_badge(view.state), " ", view.title)
        if view.verified is not None:
            label.append(" (after fix)", style="dim")
        node.set_label(label)
        fixes = self.model.fixes_for(rb_id, step_id)
        have = [c.data.command for c in node.children if c.data is not None]
        if have != [f.plan.command for f in fixes]:
            node.remove_children()
            for f in fixes:
                node.add_leaf("", NodeRef("fix", rb_id, step_id, f.plan.command))
            node.allow_expand = bool(fixes)
            if fixes:
                node.expand()
        for child in node.children:
            fv = self.model.fixes.get((rb_id, child.data.command)) if child.data else None
            if fv is None:
                continue
            status = {"proposed": "", "declined": " declined", "running": " running…",
                      "ran": " ran" + ("" if fv.verify is None else (" ✔ fixed" if fv.verify.state.value == "pass"
                                                                         else " ✖ not fixed"))}.get(fv.status, "")
            child.set_label(Text.assemble(("⚒ fix ", "bold"), (fv.plan.risk, RISK_STYLE.get(fv.plan.risk, "")),
                                          f": {fv.plan.title}", (status, "italic")))
