"""The approval gate: the exact command and host, and for high risk the host
name typed. Nothing runs on a node from the TUI without this returning True."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from rocmdoctor.results import RemediationPlan
from rocmdoctor.tui.styles import RISK_STYLE


def needs_typed_confirmation(plan: RemediationPlan) -> bool:
    return plan.confirm == "typed" or plan.risk == "high"


class ConfirmRemediation(ModalScreen[bool]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", priority=True), Binding("n", "cancel", "No", show=False),
                Binding("y", "run", "Yes", show=False)]

    def __init__(self, plan: RemediationPlan, host: str) -> None:
        super().__init__()
        self.plan = plan
        self.host = host
        self.typed = needs_typed_confirmation(plan)

    def compose(self) -> ComposeResult:
        p = self.plan
        with Vertical(id="confirm-dialog"):
            yield Label(Text.assemble(("Run remediation? ", "bold"), (f"{p.risk} risk", RISK_STYLE.get(p.risk, ""))))
            yield Static(Text(p.title))
            yield Static(Text.assemble(("host: ", "bold"), (self.host, "bold")))
            yield Static(Text.assemble(("$ ", "bold"), (p.command, "bold reverse")), id="confirm-command")
            extra = [f"verify afterwards: {p.verify_check}" if p.verify_check else "no verify check",
                     f"timeout {p.timeout:g} s" + (", with sudo" if p.sudo else "")]
            if p.rollback:
                extra.append(f"rollback: {p.rollback}")
            yield Static(Text("\n".join(extra), style="dim"))
            if self.typed:
                yield Label(Text(f"High risk: type the host name ({self.host}) to run it."))
                yield Input(placeholder=self.host, id="confirm-host")
            with Horizontal(id="confirm-buttons"):
                yield Button("Run", variant="error", id="run", disabled=self.typed)
                yield Button("Cancel", variant="primary", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#confirm-host" if self.typed else "#cancel").focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#run", Button).disabled = event.value.strip() != self.host

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip() == self.host:
            self.dismiss(True)
        else:
            self.notify(f"'{event.value}' is not {self.host}: not run", severity="warning")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.dismiss(False)

    def action_run(self) -> None:
        if self.typed and self.query_one("#confirm-host", Input).value.strip() != self.host:
            return
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
