"""`rocmdoctor capture`: everything the runbooks read, plus the context a
support engineer asks for first, in one round trip, written as a bundle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rocmdoctor.evidence.bundle import Bundle, build_bundle, write_bundle
from rocmdoctor.engine.core import TriageRequest
from rocmdoctor.evidence.probe import GatherSpec
from rocmdoctor.results import Evidence

# Context beyond the checks (what sosreport / rocm_techsupport.sh collect first).
EXTRA_GATHERS = (
    GatherSpec("command", ("dmesg",)),
    GatherSpec("command", ("uname", "-a")),
    GatherSpec("file", "/etc/os-release"),
    GatherSpec("file", "/proc/sys/kernel/osrelease"),
    GatherSpec("file", "/proc/cmdline"),
    GatherSpec("file", "/opt/rocm/.info/version"),
    GatherSpec("command", ("lspci", "-n", "-D")),
)


def _facts(evidence: dict[str, Evidence]) -> dict[str, Any]:
    def text(key: str) -> str | None:
        ev = evidence.get(key)
        return ev.value.strip() if ev is not None and ev.ok and isinstance(ev.value, str) else None

    os_release = text("file:/etc/os-release") or ""
    pretty = next((ln.split("=", 1)[1].strip('"') for ln in os_release.splitlines() if ln.startswith("PRETTY_NAME=")), None)
    return {"kernel": text("file:/proc/sys/kernel/osrelease"), "os": pretty,
            "rocm_version": text("file:/opt/rocm/.info/version")}


def capture_target(request: TriageRequest, out: Path | None, *, redact: bool = True) -> tuple[Path, Bundle]:
    from rocmdoctor.engine.core import compile_request, open_transport

    plan = compile_request(request)
    gathers = list(plan.gathers)
    keys = {g.key for g in gathers}
    gathers += [g for g in EXTRA_GATHERS if g.key not in keys]
    if request.bundle:
        from rocmdoctor.errors import RocmdoctorError

        raise RocmdoctorError("capture reads a live node, not a bundle", "copy the bundle instead")
    with open_transport(request) as transport:
        evidence = transport.collect(gathers)
        host = transport.host
    bundle = build_bundle(host, gathers, evidence, redact=redact, facts=_facts(evidence))
    bundle.manifest["runbooks"] = [rb.id for rb in plan.runbooks]
    bundle.manifest["vars"] = {k: v for k, v in plan.vars.items() if v is not None}
    if out is None:
        import time

        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in host)
        out = Path(f"rocmdoctor-{safe}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.tar.gz")
    return write_bundle(bundle, out), bundle


__all__ = ["capture_target", "EXTRA_GATHERS"]
