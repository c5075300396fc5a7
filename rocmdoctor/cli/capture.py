"""`rocmdoctor capture TARGET -o FILE.tar.gz` (module kept light: typer only at import)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from rocmdoctor.cli.common import AcceptNewOpt, RootfsOpt, RunbookOpt, SSHConfigOpt, TargetArg, VarOpt, handle_errors, parse_vars


def capture(
    target: str = TargetArg,
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Bundle to write (.tar.gz)."),
    runbook: Optional[List[str]] = RunbookOpt,
    var: Optional[List[str]] = VarOpt,
    log: Optional[str] = typer.Option(None, "--log", help="Application log on the node to include."),
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep values whose names look secret."),
    rootfs: str = RootfsOpt,
    ssh_config: Optional[str] = SSHConfigOpt,
    accept_new_host_keys: bool = AcceptNewOpt,
    sudo: bool = typer.Option(False, "--sudo", help="Gather with sudo -n."),
) -> None:
    """Capture a node's evidence once (one round trip) into a bundle to triage later.

    Examples:

      rocmdoctor capture local -o node42.tar.gz

      rocmdoctor triage --from node42.tar.gz
    """
    from rocmdoctor.engine.capture import capture_target
    from rocmdoctor.engine.core import TriageRequest

    with handle_errors():
        vars_ = parse_vars(var)
        if log:
            vars_["log"] = log
        request = TriageRequest(target=target, runbooks=tuple(runbook or ()), vars=vars_, rootfs=rootfs,
                                ssh_config=ssh_config, accept_new_host_keys=accept_new_host_keys, sudo=sudo)
        path, bundle = capture_target(request, output, redact=not no_redact)
        items = bundle.manifest["items"]
        missing = [i for i in items if i["status"] != "ok"]
        print(f"wrote {path}: {len(items)} items ({len(missing)} not collected, "
              f"{bundle.manifest['masked_values']} secret values masked)")
        print(f"triage it with: rocmdoctor triage --from {path}")


def register(app: typer.Typer) -> None:
    app.command("capture")(capture)
