"""`rocmdoctor tui HOSTLIST|@inventory`: the fleet view over the same sweep core as `rocmdoctor sweep`."""

from __future__ import annotations

import shutil
import time
from typing import Any


def run_fleet_tui(target: str, runbooks: tuple[str, ...], user_vars: dict[str, Any], paths: tuple[str, ...],
                  ssh_config: str | None, accept_new: bool, sudo: bool, incidents_dir: str | None) -> None:
    import sys

    app = build_fleet_app(target, runbooks, user_vars, paths, ssh_config, accept_new, sudo, incidents_dir)
    app.run()
    print(f"fleet journal: {app.session.journal.path}"
          + (f"; postmortem draft: {app.postmortem_path}" if app.postmortem_path else ""), file=sys.stderr)


def build_fleet_app(target: str, runbooks: tuple[str, ...] = (), user_vars: dict[str, Any] | None = None,
                    paths: tuple[str, ...] = (), ssh_config: str | None = None, accept_new: bool = False,
                    sudo: bool = False, incidents_dir: str | None = None) -> Any:
    """The FleetApp for a hostlist/@inventory target, on the sweep core (errors raised before the screen opens)."""
    from rocmdoctor.fleet.inventory import resolve_targets
    from rocmdoctor.fleet.sweep import run_sweep
    from rocmdoctor.fleet.sweep_open import FleetOpener, PlanCache
    from rocmdoctor.paths import state_dir
    from rocmdoctor.transports.audit import AuditLog

    hosts = resolve_targets([target])                      # a bad hostlist or inventory fails here, in one line
    plans = PlanCache(None, runbooks, user_vars or {}, paths=paths)
    plan = plans.default()                                  # a bad runbook too
    audit = AuditLog()

    def sweep(on_host: Any) -> Any:
        opener = FleetOpener(ssh_config=ssh_config, accept_new_host_keys=accept_new, connect_timeout=10.0,
                             audit=audit, sudo=sudo)
        try:
            return run_sweep(hosts, plan_for=plans, opener=opener, timeout=60.0,
                             runbooks=tuple(rb.id for rb in plan.runbooks),
                             on_result=lambda h, done, total: on_host(h), retries=opener.retries)
        finally:
            opener.close()

    from rocmdoctor.tui.fleet import FleetApp, FleetSession

    journal_dir = incidents_dir or str(state_dir() / "fleet" / time.strftime("%Y%m%d-%H%M%S"))
    session = FleetSession(sweep, journal_dir=journal_dir, drain=lambda names, reason: drain_hosts(names, reason, audit))
    return FleetApp(session, plan)


def drain_hosts(names: list[str], reason: str, audit: Any) -> dict[str, str]:
    """Slurm drain (as `sweep --drain-on` does, NHC's contract) where scontrol is; else a Kubernetes cordon."""
    from rocmdoctor.fleet.slurm_drain import SlurmDrainer, run_command

    out: dict[str, str] = {}
    if shutil.which("scontrol"):
        drainer = SlurmDrainer(audit=audit)
        for n in names:
            action = drainer.drain(n, reason)
            out[n] = "drained" if action.action == "drain" else f"{action.action}: {action.message}"
        return out
    if shutil.which("kubectl"):
        for n in names:
            start = time.monotonic()
            rc, _, err = run_command(["kubectl", "cordon", n], 30.0)
            audit.record(host=n, command=f"kubectl cordon {n}", exit_status=rc,
                         duration_ms=int((time.monotonic() - start) * 1000), note="fleet view: cordon the cohort")
            out[n] = "drained" if rc == 0 else f"error: {err.strip()[:120] or rc}"
        return out
    return {n: "error: neither scontrol nor kubectl on this machine" for n in names}
