"""What a sweep needs per host besides the core: a transport opener and plans.

`FleetOpener` shares one SSHContext (ssh_config parsed once, known_hosts
loaded once, jump-host connections shared) across all hosts and applies an
inventory's per-host settings on top of the ssh_config's. `PlanCache`
compiles the runbooks once per distinct set of variables: usually exactly
once per sweep.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any, Iterable, Sequence

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.fleet.inventory import HostSpec


class PlanCache:
    """Compile once per distinct vars; every host with the same vars shares the Plan."""

    def __init__(self, catalog: Any, runbook_ids: Iterable[str], user_vars: dict[str, Any], *,
                 paths: Sequence[str] | None = None) -> None:
        """`catalog`: a loaded Catalog; or None with `paths`: then each plan comes from the
        on-disk plan cache (engine.compiler.cached_plan) and the catalog is loaded only on a miss."""
        self.catalog = catalog
        self.paths = tuple(paths or ())
        self.runbook_ids = tuple(runbook_ids)
        self.user_vars = dict(user_vars)
        self._plans: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.compiled = 0

    def default(self) -> Any:
        return self.plan({})

    def plan(self, host_vars: dict[str, Any]) -> Any:
        from rocmdoctor.engine.compiler import cached_plan, compile_plan

        merged = {**host_vars, **self.user_vars}  # the command line wins over the inventory
        key = json.dumps(merged, sort_keys=True, default=str)
        with self._lock:
            if key not in self._plans:
                if self.catalog is None:
                    self._plans[key] = cached_plan(self.paths, self.runbook_ids, merged)
                else:
                    self._plans[key] = compile_plan(self.catalog, self.runbook_ids, merged)
                self.compiled += 1
            return self._plans[key]

    def __call__(self, spec: HostSpec) -> Any:
        return self.plan(spec.vars)


class FleetOpener:
    """HostSpec -> a ready transport (not yet connected)."""

    def __init__(self, *, ssh_config: str | None = None, accept_new_host_keys: bool = False,
                 connect_timeout: float = 10.0, audit: AuditLog | None = None, sudo: bool = False,
                 rootfs: str = "", dry_run: bool = False) -> None:
        self.ssh_config = ssh_config
        self.accept_new_host_keys = accept_new_host_keys
        self.connect_timeout = connect_timeout
        self.audit = audit if audit is not None else AuditLog()
        self.sudo = sudo
        self.rootfs = rootfs
        self.dry_run = dry_run
        self._context: Any = None
        self._lock = threading.Lock()

    def prepare(self, hosts: "Sequence[HostSpec]") -> None:
        """Load the SSH stack and parse ssh_config once, before the fan-out starts."""
        if any(h.name != "local" and not h.name.startswith("demo:") for h in hosts):
            import fabric  # noqa: F401
            import paramiko  # noqa: F401

            import rocmdoctor.transports.ssh  # noqa: F401

            self.context()

    def context(self) -> Any:
        """The shared SSHContext, created on first SSH host (so local sweeps never load paramiko)."""
        with self._lock:
            if self._context is None:
                from rocmdoctor.transports.ssh_connect import SSHContext

                self._context = SSHContext(self.ssh_config, accept_new_host_keys=self.accept_new_host_keys,
                                           connect_timeout=self.connect_timeout)
            return self._context

    def __call__(self, spec: HostSpec, budget: float) -> Any:
        if spec.name == "local":
            from rocmdoctor.transports.local import LocalTransport

            return LocalTransport(root=spec.rootfs or self.rootfs, env=spec.env, audit=self.audit,
                                  sudo=self.sudo, dry_run=self.dry_run)
        if spec.name.startswith("demo:"):
            from rocmdoctor.simnode.demo import open_demo

            return open_demo(spec.name[5:], dry_run=self.dry_run, audit=self.audit)
        from rocmdoctor.transports.ssh import SSHTransport

        t = SSHTransport(spec.name, context=self.context(), root=spec.rootfs or None, env=spec.env,
                         audit=self.audit, sudo=self.sudo, dry_run=self.dry_run)
        # paramiko applies the timeout per stage (socket, banner, auth) and a loaded client
        # thread wakes late: leave a fifth of the host budget for the probe and slack
        changes: dict[str, Any] = {"connect_timeout": min(t.settings.connect_timeout or self.connect_timeout,
                                                          max(0.5, budget * 0.8))}
        if spec.hostname:
            changes["hostname"] = spec.hostname
        if spec.user:
            changes["user"] = spec.user
        if spec.port:
            changes["port"] = spec.port
        if spec.jump:
            changes["proxy_jump"] = tuple(h.strip() for h in spec.jump.split(",") if h.strip())
        t.settings = dataclasses.replace(t.settings, **changes)
        return t

    def retries(self) -> int:
        return self._context.retries if self._context is not None else 0

    def close(self) -> None:
        if self._context is not None:
            self._context.close()
