"""The tools a first-sight batch is gathered with (docs/gathering.md): the used-thread list knows a thread under
both of its URLs, the batch check refuses a case whose thread is used or whose files are missing, and the draft
check reports an example that another diagnosis of the same runbook already reads; the vocabulary says what a
signature's id means without the words the signature matches."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from check_batch import check as check_batch  # noqa: E402
from check_signature_draft import check as check_draft  # noqa: E402
from corpus_used_urls import normalise, used_urls  # noqa: E402
from gen_vocabulary import vocabulary  # noqa: E402

CASE = ROOT / "tests" / "incidents" / "gpu-oom" / "mem-hipmemcreate-fd-limit"


def test_a_rocm_issue_is_known_under_both_of_its_urls() -> None:
    assert normalise("https://github.com/ROCm/ROCm/issues/3401#issuecomment-1") == {
        "https://github.com/rocm/rocm/issues/3401", "https://github.com/rocm/legacy-rocm-build/issues/3401"}
    used = used_urls()
    # data apu_gfx_targets cites it as "ROCm/ROCm#3401" text, not as a URL
    assert "https://github.com/rocm/legacy-rocm-build/issues/3401" in used


def test_the_batch_check_refuses_a_used_thread_and_a_missing_log(tmp_path: Path) -> None:
    case = tmp_path / "gpu-oom" / "copy"
    shutil.copytree(CASE, case)
    problems = check_batch(tmp_path)
    assert any("thread already used: https://github.com/ROCm/legacy-rocm-build/issues/6661" in p for p in problems)
    (case / "bundle" / "files" / "ticket" / "job.log").unlink()
    assert any("log /ticket/job.log is not in bundle/files" in p for p in check_batch(tmp_path))


def test_the_draft_check_reports_an_example_another_diagnosis_reads(tmp_path: Path) -> None:
    source = yaml.safe_load((ROOT / "signatures" / "triton-amd-sources.yaml").read_text())
    sig = next(s for s in source["signatures"] if s["id"] == "triton-amd-fp8-ocp-conversion-unsupported")
    clash = dict(sig, id="draft-fp8-conversion", diagnosis="some-other-cause")
    draft = tmp_path / "draft.yaml"
    draft.write_text(yaml.safe_dump({"signatures": [clash]}, sort_keys=False))
    problems = check_draft(draft)
    assert any(p.startswith("overlap: draft-fp8-conversion (some-other-cause) and triton-amd-fp8-ocp-conversion-unsupported")
               for p in problems)
    same = dict(sig, id="draft-fp8-conversion-same")
    draft.write_text(yaml.safe_dump({"signatures": [same]}, sort_keys=False))
    assert check_draft(draft) == []


def test_the_vocabulary_says_what_a_signature_id_means_without_its_message() -> None:
    from rocmdoctor.catalog.loader import load_catalog

    text = vocabulary()
    line = next(ln for ln in text.splitlines() if ln.startswith("- `amd-smi-cli-aborted`: "))
    assert "amd-smi itself aborted" in line
    # the meaning quotes bash's report of the abort; the vocabulary elides it
    sig = next(s for s in load_catalog().signatures if s.id == "amd-smi-process-aborted")
    assert '"Aborted (core dumped)"' in sig.means and "Aborted (core dumped)" not in line


def test_the_vocabulary_says_a_runbook_cause_without_the_step_message_it_opens_on() -> None:
    """`no-code-object-for-gpu`'s causes open on their step's message (a template): the vocabulary gives each
    cause's own first sentence, PyTorch's and the libraries', not an opening elision."""
    line = next(ln for ln in vocabulary().splitlines() if ln.startswith("- `no-code-object-for-gpu`: "))
    assert not line.startswith("- `no-code-object-for-gpu`: …")
    assert "PYTORCH_ROCM_ARCH" in line and " / ROCm lists the GPU, but the libraries jobs call carry no code" in line
