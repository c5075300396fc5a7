"""One evaluation parses each (parser, text) once however many checks gather it, and working
outputs named `_x` (the whole kernel log) stay out of the results."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import rocmdoctor.engine.evaluate as evaluate
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.simnode.formats.kernel_lines import HEALTHY_BOOT, sequence


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    d = tmp_path / "commands" / "dmesg"
    d.mkdir(parents=True)
    lines = [m for m, _ in HEALTHY_BOOT] + sequence("hang_recovered")
    d.joinpath("stdout").write_text("".join(f"[{5 + i * 0.001:12.6f}] {m}\n" for i, m in enumerate(lines)))
    return tmp_path


def test_kernel_log_parsed_once_per_parser(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: Counter[str] = Counter()
    real = evaluate.get_parser

    def counting(name: str):
        fn = real(name)

        def wrapped(text):
            calls[name] += 1
            return fn(text)
        return wrapped

    monkeypatch.setattr(evaluate, "get_parser", counting)
    report = triage_target(TriageRequest(target="", bundle=str(bundle)))
    # `kernel_log` itself may already be in the memo when its check asks (pcie_cper and kernel_events
    # build on it): at most one parse, which test_ras_counts_reuse_the_events_the_checks_parsed counts
    assert calls["kernel_events"] == 1 and calls["kernel_log"] <= 1 and calls["ras_log_counts"] == 1, calls
    assert calls["pcie_cper"] == 1, calls
    resets = next(s for r in report.runbooks for s in r.steps if s.step_id == "resets")
    assert resets.check.message.startswith("0 ring timeout(s) and 1 GPU reset(s) this boot")


def test_ras_counts_reuse_the_events_the_checks_parsed(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ras_log_counts` and `pcie_cper` build on the kernel log's records: they take them from the
    same memo, so a triage reads the log's lines once, not three times."""
    from rocmdoctor.parsers import kernel_log

    runs = Counter[str]()
    real = kernel_log.parse_kernel_log

    def counting(text):
        runs["events"] += 1   # parse_kernel_events reads the log through this module global
        return real(text)

    monkeypatch.setattr(kernel_log, "parse_kernel_log", counting)
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=("gpu-hardware-fault",)))
    assert runs["events"] == 1, runs
    xgmi = next(s for r in report.runbooks for s in r.steps if s.step_id == "xgmi")
    assert xgmi.check is not None


def test_working_outputs_stay_out_of_results(bundle: Path) -> None:
    report = triage_target(TriageRequest(target="", bundle=str(bundle)))
    outputs = {s.check.check_id: s.check.outputs for r in report.runbooks for s in r.steps if s.check}
    assert outputs["thermal.kernel_events"] and "_events" not in outputs["thermal.kernel_events"]
    assert "_events" not in outputs["driver.probe_errors"] and "probe" in outputs["driver.probe_errors"]
    assert not any(k.startswith("_") for o in outputs.values() for k in o)
