"""Per-GPU hardware counters for `--format prometheus`, read from the gpu-hardware-fault checks' outputs.

The check states say whether a host is sick; these samples let a TSDB keep the counters
themselves, so a rate or a trend can alert before a threshold does (DCGM's replay-rate rule,
AMD's exporter `gpu_ecc_uncorrect_<block>`). Only hosts whose sweep ran those checks have them.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

Sample = tuple[tuple[tuple[str, str], ...], float]


def _outputs(hosts: Iterable[Any], check_id: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for h in hosts:
        report = getattr(h, "report", None)
        if report is None:
            continue
        for rb in report.runbooks:
            for s in rb.steps:
                if s.check is not None and s.check.check_id == check_id and s.check.outputs:
                    yield h.host, s.check.outputs
                    break
            else:
                continue
            break


def ras_samples(hosts: Iterable[Any]) -> list[Sample]:
    out: list[Sample] = []
    for host, o in _outputs(hosts, "hw.ras_errors"):
        for r in o.get("rows") or []:
            for kind in ("ue", "ce", "de"):
                if isinstance(r.get(kind), int):
                    out.append(((("host", host), ("gpu", r["bdf"]), ("block", r["block"]), ("type", kind)), r[kind]))
    return out


def retired_page_samples(hosts: Iterable[Any]) -> list[Sample]:
    out: list[Sample] = []
    for host, o in _outputs(hosts, "hw.bad_pages"):
        for g in o.get("gpus") or []:
            for flag, key in (("R", "reserved"), ("P", "pending"), ("F", "failed")):
                out.append(((("host", host), ("gpu", g["bdf"]), ("flag", flag)), g.get(key) or 0))
    return out


def reset_samples(hosts: Iterable[Any]) -> list[Sample]:
    out: list[Sample] = []
    for host, o in _outputs(hosts, "hw.resets"):
        out.append(((("host", host), ("event", "ring_timeout")), len(o.get("timeouts") or [])))
        out.append(((("host", host), ("event", "gpu_reset")), len(o.get("resets") or [])))
        out.append(((("host", host), ("event", "reset_failed")), len(o.get("failed") or [])))
        out.append(((("host", host), ("event", "resume_failed")), len(o.get("resume_failed") or [])))
    return out


def pcie_samples(hosts: Iterable[Any]) -> tuple[list[Sample], list[Sample], list[Sample]]:
    """Width and speed of each GPU package's link to its slot (`slots`: above the package's own
    switch, where the GPU function's files show only the internal link), and replays."""
    width: list[Sample] = []
    speed: list[Sample] = []
    replays: list[Sample] = []
    for host, o in _outputs(hosts, "hw.pcie_link"):
        for g in o.get("slots") or []:
            for which, w_key, s_key in (("current", "width", "cur"), ("max", "card_max_width", "card_max")):
                labels = (("host", host), ("gpu", g["bdf"]), ("link", which))
                if isinstance(g.get(w_key), int):
                    width.append((labels, g[w_key]))
                if isinstance(g.get(s_key), dict) and isinstance(g[s_key].get("gts"), (int, float)):
                    speed.append((labels, g[s_key]["gts"]))
        for g in o.get("gpus") or []:
            if isinstance(g.get("replays"), int):
                replays.append(((("host", host), ("gpu", g["key"])), g["replays"]))
    return width, speed, replays


def write_gpu_families(w: Any, hosts: Iterable[Any]) -> None:
    hosts = list(hosts)
    w.family("gpu_ras_errors", "gauge",
             "RAS error count of a GPU block since the driver loaded (sysfs ras/<block>_err_count): ue uncorrectable, "
             "ce correctable, de deferred.", ras_samples(hosts))
    w.family("gpu_retired_pages", "gauge",
             "Retired VRAM pages by flag (ras/gpu_vram_bad_pages): R reserved, P pending, F could not be reserved.",
             retired_page_samples(hosts))
    w.family("gpu_kernel_events", "gauge", "amdgpu hang and reset lines in this boot's kernel log, by kind.",
             reset_samples(hosts))
    width, speed, replays = pcie_samples(hosts)
    w.family("gpu_pcie_link_width", "gauge", "PCIe lanes of the GPU package's link to its slot: current and the card's maximum.",
             width)
    w.family("gpu_pcie_link_speed_gts", "gauge",
             "PCIe speed (GT/s) of the GPU package's link to its slot: current and the card's maximum.", speed)
    w.family("gpu_pcie_replays", "gauge", "PCIe replays (NAKs) of the GPU since boot (pcie_replay_count).", replays)
