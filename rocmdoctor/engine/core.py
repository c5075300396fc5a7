"""One call per front-end action: resolve the target, load and compile the
runbooks, triage. The CLI, the TUI and the sweep all come through here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rocmdoctor.engine.events import EventSink
from rocmdoctor.engine.readings import ReadingStore
from rocmdoctor.engine.triage import Approver, TriageReport, decline_all, run_triage

if TYPE_CHECKING:
    from rocmdoctor.engine.compiler import Plan
    from rocmdoctor.evidence.bundle import Bundle
    from rocmdoctor.transports.base import Transport


@dataclass(frozen=True)
class TriageRequest:
    target: str
    runbooks: tuple[str, ...] = ()
    vars: dict[str, Any] = field(default_factory=dict)
    fix: bool = False
    yes: bool = False
    dry_run: bool = False
    rootfs: str = ""
    paths: tuple[str, ...] = ()
    ssh_config: str | None = None
    accept_new_host_keys: bool = False
    sudo: bool = False
    bundle: str | None = None
    env: dict[str, str] = field(default_factory=dict)


def _noop(event: object) -> None:
    pass


def compile_request(request: TriageRequest, bundle: "Bundle | None" = None) -> "Plan":
    """Load the catalog (built-in plus --path dirs) and compile the requested runbooks."""
    from rocmdoctor.engine.compiler import cached_plan

    return cached_plan(request.paths, request.runbooks, request_vars(request, bundle))


def open_transport(request: TriageRequest) -> "Transport":
    """The transport for a request: a bundle (--from), or the target (local, demo:, SSH)."""
    if request.bundle:
        from rocmdoctor.transports.replay import open_bundle

        return open_bundle(request.bundle)
    from rocmdoctor.engine.targets import TargetOptions, open_target

    opts = TargetOptions(rootfs=request.rootfs, dry_run=request.dry_run, sudo=request.sudo,
                         ssh_config=request.ssh_config, accept_new_host_keys=request.accept_new_host_keys,
                         env=request.env)
    return open_target(request.target, opts)


def request_vars(request: TriageRequest, bundle: "Bundle | None" = None) -> dict[str, Any]:
    """The user's variables, over a demo node's own (so `demo:gpu-fell-off-bus` shows its fault); for a bundle,
    with every attachment under its ticket/ folder added to the logs read for error signatures."""
    if request.target.startswith("demo:") and not request.bundle:
        from rocmdoctor.simnode.demo import demo_vars

        return {**demo_vars(request.target), **request.vars}
    return ticket_logs(dict(request.vars), bundle) if bundle is not None else dict(request.vars)


def ticket_logs(vars: dict[str, Any], bundle: "Bundle") -> dict[str, Any]:
    """A ticket's bundle holds what its thread pasted, one file per paste (files/ticket/<name>): a backtrace, a
    second run, an install log. The one given as --log (or --report) is read first; the others are read for
    error signatures after it, as a reader of the ticket would read them, instead of being left unread. Explicit
    --log lists (`logs`) are the user's choice and are kept as given."""
    if isinstance(vars.get("logs"), (list, tuple)):
        return vars
    attached = sorted("/" + name[len("files/"):] for name in bundle.members
                      if name.startswith("files/ticket/") and name.count("/") == 2)
    named = [str(vars[k]) for k in ("log", "report") if vars.get(k)]
    rest = [path for path in attached if path not in named]
    if not rest:
        return vars
    return {**vars, "logs": ([str(vars["log"])] if vars.get("log") else []) + rest}


def triage_target(
    request: TriageRequest,
    *,
    approver: Approver | None = None,
    on_event: EventSink = _noop,
    interactive_output: bool = False,
    preload: tuple[str, ...] = (),
) -> TriageReport:
    """`preload`: modules the caller will need afterwards (e.g. the table renderer),
    imported while the node runs the probe."""
    # a bundle is read before compiling (its ticket attachments are logs to read); a node is connected to only
    # once its plan compiled, so a bad runbook never leaves a connection open
    replay = open_transport(request) if request.bundle else None
    plan = compile_request(request, getattr(replay, "bundle", None))
    if approver is None:
        if request.fix:
            from rocmdoctor.engine.terminal_approver import prompt_approver

            approver = prompt_approver(auto_approve=request.yes)
        else:
            approver = decline_all
    transport = replay or open_transport(request)
    # a replayed bundle is a past state: it neither reads nor moves the host's last readings
    readings = None if request.bundle else ReadingStore()
    with transport:
        return run_triage(transport, plan, target=request.target if not request.bundle else transport.host,
                          fix=request.fix or request.dry_run, approver=approver, on_event=on_event, preload=preload,
                          readings=readings)


#: where `explain` puts the pasted text in the bundle it triages
EXPLAIN_LOG = "/ticket/explain.log"


def explain_report(text: str, paths: tuple[str, ...] = ()) -> TriageReport:
    """The text as a ticket's triage reads it: a bundle holding it as the job log, the ticket's report and
    the kernel log, triaged with every runbook and no node behind it. `explain` ranks its causes
    from this report, so a line means the same in `explain`, in `--log` and in a triage of a
    bundle or node that holds it: one reading path, decided in one place (the runbooks and
    the signature catalogue), not a second matcher."""
    from rocmdoctor.engine.compiler import cached_plan
    from rocmdoctor.evidence.bundle import Bundle
    from rocmdoctor.transports.replay import ReplayTransport

    data = text.encode("utf-8", errors="replace")
    bundle = Bundle(members={f"files{EXPLAIN_LOG}": data, "commands/dmesg/stdout": data}, source="<explain>")
    # the same text is also read as the ticket's report: a pasted issue form or collect_env states the GPU,
    # release, OS and kernel (parser stated_env), as `--report` does in a triage
    plan = cached_plan(paths, (), {"log": EXPLAIN_LOG, "report": EXPLAIN_LOG})
    with ReplayTransport(bundle) as transport:
        return run_triage(transport, plan, target="explain", fix=False, approver=decline_all)
