"""`--format prometheus`: node_exporter textfile-collector format.

Metric names, labels and values are documented in docs/sweeps.md. States are
encoded as the monitoring-plugin exit status (0 pass, 1 warn, 2 fail,
3 unknown) so one alert rule (`> 1`) covers fail and unknown; skipped steps
are not exported. Label values are escaped per the exposition format
(backslash, double quote, newline).
"""

from __future__ import annotations

import time
from typing import Any, Iterable

from rocmdoctor.status import State, exit_status_for

PREFIX = "rocmdoctor"


def escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _labels(pairs: Iterable[tuple[str, str]]) -> str:
    body = ",".join(f'{k}="{escape_label(str(v))}"' for k, v in pairs)
    return "{" + body + "}" if body else ""


def _value(state: State) -> int:
    return int(exit_status_for(state))


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def family(self, name: str, kind: str, help_text: str, samples: Iterable[tuple[Iterable[tuple[str, str]], float]]) -> None:
        samples = list(samples)
        if not samples:
            return
        full = f"{PREFIX}_{name}"
        self.lines.append(f"# HELP {full} {escape_help(help_text)}")
        self.lines.append(f"# TYPE {full} {kind}")
        for labels, value in samples:
            v = repr(float(value)) if isinstance(value, float) and not float(value).is_integer() else str(int(value))
            self.lines.append(f"{full}{_labels(labels)} {v}")


def render_prometheus(sweep: Any, now: float | None = None) -> str:
    w = _Writer()
    hosts = sweep.hosts
    w.family("host_state", "gauge", "Worst state of the host: 0 pass, 1 warn, 2 fail, 3 unknown.",
             [((("host", h.host),), _value(h.state)) for h in hosts])
    w.family("host_up", "gauge", "1 if the host was reached and triaged, 0 if not (see the reason label).",
             [((("host", h.host), ("reason", h.reason)), 0 if h.reason else 1) for h in hosts])
    w.family("host_duration_seconds", "gauge", "Wall time spent on the host (connect, probe, evaluation).",
             [((("host", h.host),), round(h.duration_ms / 1000, 3)) for h in hosts])
    w.family("host_round_trips", "gauge", "Commands sent to the host (the evidence probe is one).",
             [((("host", h.host),), h.round_trips) for h in hosts if h.reachable])
    w.family("runbook_state", "gauge", "Worst state of a runbook on a host: 0 pass, 1 warn, 2 fail, 3 unknown.",
             [((("host", h.host), ("runbook", rb)), _value(s)) for h in hosts for rb, s in h.runbooks])
    w.family("check_state", "gauge",
             "State of a runbook step's check on a host: 0 pass, 1 warn, 2 fail, 3 unknown (skipped steps omitted).",
             [((("host", h.host), ("runbook", c.runbook), ("step", c.step), ("check", c.check)), _value(c.state))
              for h in hosts for c in h.checks if c.state != State.SKIPPED])
    w.family("node_info", "gauge",
             "What the host runs (node.fingerprint): kernel, OS, amdgpu driver, ROCm, GPU model and count, VBIOS; value 1.",
             [((("host", h.host), *((k, str(v) if v is not None else "") for k, v in sorted(h.report.fingerprint.items())
                                   if k not in ("dkms", "firmware"))), 1)
              for h in hosts if h.report is not None and h.report.fingerprint])
    from rocmdoctor.fleet.outputs.gpu_metrics import write_gpu_families

    write_gpu_families(w, hosts)
    counts = sweep.counts()
    w.family("sweep_hosts", "gauge", "Hosts of the last sweep by worst state.",
             [((("state", s),), n) for s, n in counts.items()])
    w.family("sweep_unreachable_hosts", "gauge", "Hosts of the last sweep that could not be triaged, by reason.",
             [((("reason", r),), n) for r, n in sweep.reasons().items()])
    w.family("sweep_duration_seconds", "gauge", "Wall time of the last sweep.", [((), round(sweep.duration_s, 3))])
    w.family("sweep_exit_status", "gauge", "Exit status of the last sweep (worst state, 0-3; with --gate the gate's).",
             [((), int(sweep.exit_status))])
    if sweep.gate is not None:
        w.family("gate_state", "gauge", "Rollout gate against the baseline: 0 pass, 1 a host newly warns, "
                 "2 newly fails, lost a GPU or drifted, 3 a host could not be compared.", [((), int(sweep.gate.exit_status))])
        w.family("gate_stopped_hosts", "gauge", "Hosts of the wave the gate stopped on.",
                 [((), len(sweep.gate.stopped_hosts))])
    w.family("sweep_last_run_timestamp_seconds", "gauge", "Unix time the last sweep finished.",
             [((), round(now if now is not None else time.time(), 3))])
    return "\n".join(w.lines) + "\n"
