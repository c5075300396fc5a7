"""amdgpu's RAS error counts as the kernel log states them, read from the events kernel_log classified."""

from __future__ import annotations

from typing import Any

from rocmdoctor.parsers import parsed, parser


@parser("ras_log_counts")
def parse_ras_log_counts(text: str) -> dict[str, dict[str, dict[str, Any]]]:
    """amdgpu's RAS error counts as the kernel log states them, per GPU and RAS block.

    Returns `{bdf: {block: {"ue": int, "ce": int, "de": int, "lines": [line, ...]}}}` from
    the `ras_total`, `ras_correctable` and `ras_uncorrectable` count lines. A socket/die's
    count is its last "detected in total" line (cumulative since the driver loaded) or,
    where the kernel prints no total (before Linux 6.7), the sum of its new-error lines;
    a GPU's count is the sum over its dies. `lines` keeps the lines with a nonzero count
    as evidence. Lines with no device address are left out: a count that names no GPU
    cannot be put on one. Raises ParseError like `kernel_log`.
    """
    totals: dict[tuple[str, str, str, str, str], int] = {}
    news: dict[tuple[str, str, str, str, str], int] = {}
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for ev in parsed("kernel_events", text):   # the events the checks already parsed, not a second parse
        f, bdf = ev["fields"], ev["bdf"]
        if not bdf:
            continue
        if ev["kind"] == "ras_total":
            sev = {"uncorrectable": "ue", "correctable": "ce", "deferred": "de"}[f["severity"]]
            key, count = (bdf, f["tblock"], sev, f.get("socket", ""), f.get("die", "")), int(f["tcount"])
            totals[key] = count
        elif ev["kind"] == "ras_correctable":
            key, count = (bdf, f["cblock"], "ce", f.get("csocket", ""), f.get("cdie", "")), int(f["ccount"])
            news[key] = news.get(key, 0) + count
        elif ev["kind"] == "ras_uncorrectable" and "count" in f:  # the ERREVENT form carries no count
            key, count = (bdf, f["block"], "ue", f.get("usocket", ""), f.get("udie", "")), int(f["count"])
            news[key] = news.get(key, 0) + count
        else:
            continue
        row = out.setdefault(bdf, {}).setdefault(key[1], {"ue": 0, "ce": 0, "de": 0, "lines": []})
        if count:
            row["lines"].append(ev["line"])
    for key, count in {**news, **totals}.items():  # a die's total supersedes its new-error lines
        out[key[0]][key[1]][key[2]] += count
    return out
