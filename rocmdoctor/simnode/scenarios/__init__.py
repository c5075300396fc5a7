"""Registry of simulated incidents: name -> Scenario (a node builder plus what triage must find).

Each runbook's module here (gpu_not_visible.py, thermal.py, ...) builds its
nodes from the healthy ones in rocmdoctor.simnode.nodes and exposes them as a
module-level `SCENARIOS` list (or calls `register`). Importing this package
imports every submodule, so `SCENARIOS` is complete; the demo targets, the
sweep benchmark and the runbook tests all read it.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

from rocmdoctor.simnode.node import SimNode


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    build: Callable[[], SimNode]
    runbooks: tuple[str, ...] = ()
    #: what a correct triage reports, e.g. {"state": "pass"} or
    #: {"step": "...", "diagnosis": "...", "vars": {...}}
    expect: dict[str, Any] = field(default_factory=dict)


SCENARIOS: dict[str, Scenario] = {}


def from_cases(cases: list[tuple[Any, ...]], runbooks: tuple[str, ...]) -> list[Scenario]:
    """Scenarios from a runbook module's table of
    `(name, description, build, decisive step, diagnosis id[, vars])` rows."""
    out = []
    for name, description, build, step, diagnosis, *rest in cases:
        expect = {"step": step, "diagnosis": diagnosis, "vars": dict(rest[0]) if rest else {}}
        out.append(Scenario(name=name, description=description, build=build, runbooks=runbooks, expect=expect))
    return out


def register(*scenarios: Scenario) -> None:
    """Add scenarios; a name used twice is a bug in the test bed, so it fails loudly."""
    for s in scenarios:
        old = SCENARIOS.get(s.name)
        if old is not None and old is not s:
            raise ValueError(f"scenario {s.name!r} registered twice")
        SCENARIOS[s.name] = s


def _load_all() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        listed = getattr(module, "SCENARIOS", None)
        if isinstance(listed, (list, tuple)):
            register(*[s for s in listed if isinstance(s, Scenario)])


_load_all()
