"""The error-signature catalogue: real messages give the right runbook and root cause,
unrelated text gives none, malformed signature files are refused with file:line, and
no pattern can be made to hang on hostile input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.catalog.schema_signatures import pattern_problem
from rocmdoctor.engine.line_match import match_text
from rocmdoctor.engine.signatures import best_per_diagnosis

HERE = Path(__file__).parent
MESSAGES = yaml.safe_load((HERE / "real_messages.yaml").read_text())["messages"]
ERRORS = [m for m in MESSAGES if not m.get("none")]
NOT_ERRORS = [m for m in MESSAGES if m.get("none")]


def test_the_table_is_real_and_large_enough() -> None:
    assert len(ERRORS) >= 41
    assert all(m["url"].startswith("https://") for m in MESSAGES)


@pytest.mark.parametrize("msg", ERRORS, ids=[m["url"].split("github.com/")[-1] + ":" + m["text"][:30] for m in ERRORS])
def test_real_message_gives_runbook_and_cause(msg: dict) -> None:
    matches = match_text(load_catalog().signatures, msg["text"])
    assert matches, f"no signature for {msg['text']!r}"
    first = best_per_diagnosis(matches)[0]
    assert f"{first.runbook}/{first.diagnosis}" in msg["accept"]
    assert first.line == msg["text"].strip()[:300] or msg["text"].strip().startswith(first.line[:-3])
    assert first.urls and all(u.startswith("https://") for u in first.urls)
    assert first.means and "{" not in first.means  # placeholders filled


@pytest.mark.parametrize("msg", NOT_ERRORS, ids=[m["text"][:30] for m in NOT_ERRORS])
def test_real_non_error_lines_match_nothing(msg: dict) -> None:
    assert match_text(load_catalog().signatures, msg["text"]) == []


def test_captured_values_are_text_in_our_sentence() -> None:
    line = "Error! Bad return status for module build on kernel: 6.8.0-{evil}[x (x86_64)"
    (m,) = match_text(load_catalog().signatures, line)
    assert "6.8.0-{evil}[x" in m.means
    assert m.groups["kernel"] == "6.8.0-{evil}[x"


def test_counts_repeats_and_quotes_the_first_line() -> None:
    text = "\n".join(["noise"] * 3 + ["[    7.668049] amdgpu: Unknown symbol amd_iommu_bind_pasid (err -2)",
                                     "[    7.668135] amdgpu: Unknown symbol amd_iommu_set_invalidate_ctx_cb (err -2)"])
    (m,) = match_text(load_catalog().signatures, text, "dmesg.txt")
    assert m.count == 2 and m.lineno == 4
    assert m.quote == "dmesg.txt:4: [    7.668049] amdgpu: Unknown symbol amd_iommu_bind_pasid (err -2)"


def test_a_message_wrapped_after_its_colon_is_read_whole() -> None:
    """A terminal or a paste breaks docker's error after `group render:` (ROCm/composable_kernel's CI
    log); the two lines are one message. A line that matches alone is not joined."""
    text = "docker: Error response from daemon: Unable to find group render:\nno matching entries in group file.\n"
    (m,) = match_text(load_catalog().signatures, text, "docker.log")
    assert m.signature_id == "container-group-name-not-in-image" and m.lineno == 1
    assert m.line.endswith("Unable to find group render: no matching entries in group file.")
    assert match_text(load_catalog().signatures, "Unable to find group render:\n\nno matching entries", "x") == []


def test_a_message_wrapped_after_a_comma_is_read_whole() -> None:
    """Triton's one-line OutOfResources message as vllm-project/vllm#49778 quotes it, broken after "shared memory,"
    (in the corpus): the lines are one message, quoted from the first."""
    text = ("triton.runtime.errors.OutOfResources: out of resource: shared memory,\n"
            "Required: 165888, Hardware limit: 163840.\nReducing block sizes or `num_stages` may help.\n")
    (m,) = match_text(load_catalog().signatures, text, "vllm.log")
    assert m.lineno == 1 and m.groups["required"] == "165888" and m.groups["limit"] == "163840"
    assert m.diagnosis == "kernel-config-exceeds-lds"



def test_a_message_wrapped_through_its_literal_is_read_whole() -> None:
    """vLLM's start-up check broken mid-sentence in a CI log (vllm-project/vllm, in the corpus): the next
    line goes on in lower case and a literal spans the break. A log whose next line starts a new entry
    (timestamp, capital) is not joined, nor is a match that lies wholly on the next line."""
    first = "ValueError: Free memory on device cuda:0 (24.68/255.98 GiB) on startup is less than"
    text = f"{first}\ndesired GPU memory utilization (0.9, 230.39 GiB).\n"
    (m,) = match_text(load_catalog().signatures, text, "job.log")
    assert m.signature_id == "vllm-free-memory-below-utilization" and m.lineno == 1
    assert m.groups["free"] == "24.68" and m.groups["want"] == "230.39"
    assert match_text(load_catalog().signatures, f"{first}\nDesired GPU memory utilization (0.9, 230.39 GiB).", "x") == []
    whole = "ValueError: Free memory on device cuda:0 (7.34/15.49 GiB) on startup is less than desired GPU memory utilization (0.8, 12.39 GiB)."
    (m,) = match_text(load_catalog().signatures, f"step 12\n{whole}\n", "x")
    assert m.lineno == 2

# --- hostile input --------------------------------------------------------------------

HOSTILE = [
    "Unable to open /dev/kfd read-write: " + "a" * 1_000_000,
    "Bad return status for module build on kernel: " + " " * 1_000_000,
    ("BAR " * 250_000) + "no space",
    "OOM when allocating tensor with shape" + "[1," * 300_000 + " and type",
    "\x1b[31m" + "amdgpu: Unknown symbol " * 40_000 + "(err",
    "model requires more system memory (" * 30_000,
]


@pytest.mark.parametrize("line", HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_megabyte_lines_are_matched_without_hanging(line: str) -> None:
    """Each line holds the anchors of some signature, a million characters long; the
    window around the anchor and the load-time pattern check keep this linear."""
    matches = match_text(load_catalog().signatures, line + "\n" + line)
    assert all(len(m.line) <= 300 for m in matches)


@pytest.mark.parametrize("pattern,why", [
    (r"(a+)+b", "quantifier inside another"),
    (r"(\w+\s?)*$", "quantifier inside another"),
    (r"(\w)\1", "back-references"),
    (r"x.*y.*z.*w", "unbounded repeats"),
    (r"([", "not a regular expression"),
])
def test_dangerous_patterns_are_refused(pattern: str, why: str) -> None:
    assert why in (pattern_problem(pattern) or "")


def test_builtin_patterns_pass_the_check() -> None:
    sigs = load_catalog().signatures
    assert len(sigs) >= 35
    assert all(pattern_problem(p) is None for s in sigs for p in s.patterns)


# --- malformed signature files: file:line and exit 2 ------------------------------------

GOOD = """\
signatures:
  - id: my-sig
    family: mine
    pattern: 'Something broke badly'
    means: it broke
    runbook: gpu-oom
    diagnosis: job-needs-more-vram
    source: https://example.org/thread/1
    example: 'Something broke badly here'
"""

BAD = [
    ("nested", GOOD.replace("'Something broke badly'", "'Something (a+)+ broke'"), 4, "refused"),
    ("no-anchor", GOOD.replace("'Something broke badly'", "'\\d+ \\w+'"), 4, "no literal"),
    ("example", GOOD.replace("here'", "here'\n").replace("'Something broke badly here'", "'nothing alike'"), 9, "does not match"),
    ("runbook", GOOD.replace("runbook: gpu-oom", "runbook: gpu-omm"), 6, "unknown runbook"),
    ("source", GOOD.replace("https://example.org/thread/1", "a forum"), 8, "URL"),
    ("confidence", GOOD + "    confidence: sure\n", 10, "confidence"),
    ("unknown-key", GOOD + "    serverity: warning\n", 10, "did you mean 'severity'"),
    ("missing", GOOD.replace("    means: it broke\n", ""), 2, "'means'"),
    ("check", GOOD + "    confirm: {check: no.such_check}\n", 10, "unknown check"),
    ("duplicate", GOOD + GOOD.split("signatures:\n", 1)[1], 10, "defined twice"),
    ("backref", GOOD.replace("'Something broke badly'", "'Something (b)\\1 broke'"), 4, "back-references"),
    ("contradicted-no-check", GOOD + "    confirm:\n      contradicted: {diagnosis: other-cause, means: not that}\n", 11,
     "needs a check that refutes the line"),
    ("contradicted-no-means", GOOD + "    confirm:\n      check: amdgpu.module_loaded\n      contradicted: {diagnosis: other-cause}\n",
     12, "'means'"),
    ("contradicted-confidence", GOOD + "    confirm:\n      check: amdgpu.module_loaded\n      contradicted:\n"
     "        diagnosis: other-cause\n        means: not that\n        confidence: sure\n", 15, "confidence"),
    ("contradicted-empty-list", GOOD + "    confirm:\n      check: amdgpu.module_loaded\n      contradicted: []\n", 12,
     "empty list"),
    ("contradicted-unknown-check", GOOD + "    confirm:\n      check: amdgpu.module_loaded\n      contradicted:\n"
     "        - diagnosis: other-cause\n          means: not that\n          check: pci.no_such\n", 15, "unknown check 'pci.no_such'"),
    ("contradicted-unknown-output", GOOD + "    confirm:\n      check: amdgpu.module_loaded\n      contradicted:\n"
     "        - diagnosis: other-cause\n          means: not that\n          check: pci.amd_gpus\n"
     "          outputs: {gpus: 0}\n", 16, "check 'pci.amd_gpus' has no output 'gpus'"),
    ("contradicted-output-value", GOOD + "    confirm:\n      check: amdgpu.module_loaded\n      contradicted:\n"
     "        - diagnosis: other-cause\n          means: not that\n          check: pci.amd_gpus\n"
     "          outputs:\n            count: [0]\n", 17, "must equal a plain value"),
]


@pytest.mark.parametrize("name,text,line,words", BAD, ids=[b[0] for b in BAD])
def test_malformed_signature_file_names_file_and_line(tmp_path: Path, name: str, text: str, line: int,
                                                      words: str) -> None:
    d = tmp_path / "signatures"
    d.mkdir()
    f = d / "mine.yaml"
    f.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "runbooks", "validate", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{f}:{line}:" in proc.stderr and words in proc.stderr
    assert "Traceback" not in proc.stderr


def test_good_user_signature_file_validates_and_is_used(tmp_path: Path) -> None:
    d = tmp_path / "signatures"
    d.mkdir()
    (d / "mine.yaml").write_text(GOOD)
    ok = subprocess.run([sys.executable, "-m", "rocmdoctor", "runbooks", "validate", str(tmp_path)],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    out = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", "--path", str(tmp_path), "-f", "json",
                          "x: Something broke badly"], capture_output=True, text=True, timeout=60)
    doc = json.loads(out.stdout)
    assert doc["causes"][0]["signature"] == "my-sig" and doc["causes"][0]["diagnosis"] == "job-needs-more-vram"


def test_builtin_signatures_validate() -> None:
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "runbooks", "validate"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "signatures" in proc.stdout


def test_docs_list_every_signature() -> None:
    """docs/signatures.md's catalogue table is written by hand: it must name every signature and the count."""
    import re

    sigs = load_catalog().signatures
    doc = (HERE.parents[1] / "docs" / "signatures.md").read_text()
    listed = set(re.findall(r"^\| `([a-z0-9-]+)` \|", doc, re.MULTILINE))
    assert listed == {s.id for s in sigs}
    assert f"\n{len(sigs)} signatures.\n" in doc


def test_the_probes_own_rocminfo_runtime_status_names_a_cause_only_as_a_fallback(tmp_path: Path) -> None:
    """A ticket with only rocminfo's generic HSA failure (ROCm/legacy-rocm-build#5942, verbatim): the
    HSA signature names its cause at low confidence, quoting rocminfo's line; rocminfo's /dev/kfd
    lines stay with runtime.rocminfo_errors, and no other runbook is pulled in."""
    from rocmdoctor.engine.core import TriageRequest, triage_target

    d = tmp_path / "ticket" / "commands" / "rocminfo"
    d.mkdir(parents=True)
    (d / "stdout").write_text(
        "ROCk module version 6.16.13 is loaded\n"
        "hsa api call failure at: /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_"
        "profiles/src/rocm-systems/projects/rocminfo/rocminfo.cc:1329\n"
        "Call returned HSA_STATUS_ERROR: A generic error has occurred.\n")
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path / "ticket"), runbooks=("gpu-not-visible",)))
    assert [r.runbook_id for r in report.runbooks] == ["gpu-not-visible"]
    rb = report.runbooks[0]
    first = rb.diagnoses[0]
    assert (first.diagnosis_id, first.confidence) == ("legacy-gpu-breaks-runtime", "low")
    assert first.evidence[0] == "rocminfo:3: Call returned HSA_STATUS_ERROR: A generic error has occurred."
    assert any("gfx_target_version" in f for f in first.follow_up)


def test_docs_count_the_signatures_per_source() -> None:
    """The per-repository block of docs/signatures.md is generated (tools/gen_signature_docs.py)."""
    import subprocess
    import sys

    tool = HERE.parents[1] / "tools" / "gen_signature_docs.py"
    r = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_the_trie_prefilter_finds_what_the_flat_alternation_finds() -> None:
    """The prefilter is one trie-shaped pattern of the catalogue's literals; it must hit exactly the
    lines a plain alternation of the same literals hits (the real messages and non-error lines)."""
    import re

    from rocmdoctor.engine.line_match import _trie_pattern

    cat = load_catalog()
    words = {max(a, key=len) for s in cat.signatures for a, f in zip(s.anchors, s.ignore_case) if not f}
    trie, flat = re.compile(_trie_pattern(words)), re.compile("|".join(map(re.escape, words)))
    lines = [m["text"] for m in MESSAGES] + ["abc", "", "rocBLAS erro", "Unable to open /dev/kf"]
    assert [bool(trie.search(x)) for x in lines] == [bool(flat.search(x)) for x in lines]
    assert re.fullmatch(_trie_pattern({"ab", "abc", "b"}), "abc") and _trie_pattern(set()) == ""


def test_a_message_longer_than_a_file_name_is_read_as_text_not_a_crash() -> None:
    """`explain "<a 300-character line>"`: the OS refuses such a name (ENAMETOOLONG) when explain asks
    whether the argument is a file; the line is the message, explained, never an internal error."""
    line = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1036 " + "x" * 300
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", line], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 3 and "internal error" not in proc.stderr, proc.stderr
    assert "rocblas-no-tensile-library" in proc.stdout


# lines that honestly carry two readings in one runbook: TensorFlow's malformed target list names the
# targets it then reports unsupported (the list's typo is the cause, the rejection its effect)
_TWO_READINGS = {frozenset({"tf-gpu-target-list-malformed", "tf-gpu-unsupported-gfx"}),
                 # HIP's own words inside yaksa's init-hook line: the longer, library-specific reading goes first
                 frozenset({"hip-error-no-device", "hip-no-rocm-capable-device", "yaksa-hip-init-hook-failed"})}


def test_a_line_means_one_thing_per_runbook() -> None:
    """One message, one reading: a new signature that matches another's example line in the same runbook
    with another diagnosis is a second meaning for the same words (an ollama line once read both as
    no-code-object-for-gpu and unsupported-gpu). Fallback (generic) signatures stand aside."""
    sigs = list(load_catalog().signatures)
    clashes = []
    for s in sigs:
        for ex in s.examples:
            by_runbook: dict[str, dict[str, str]] = {}
            for m in match_text(sigs, ex):
                if not m.fallback:
                    by_runbook.setdefault(m.runbook, {})[m.signature_id] = m.diagnosis
            for runbook, readings in by_runbook.items():
                if len(set(readings.values())) > 1 and frozenset(readings) not in _TWO_READINGS:
                    clashes.append((s.id, runbook, readings))
    assert not clashes, clashes


def test_explain_lists_the_surest_cause_first_across_runbooks() -> None:
    """amdgpu's firmware request failing (amdgpu-firmware-file-not-loaded's real sample) is read by
    kernel-driver-mismatch (high) and by gpu-not-visible (medium): both runbooks fail, and "most certain first"
    puts kernel-driver-mismatch first although gpu-not-visible comes first in the catalogue."""
    line = next(ex for s in load_catalog().signatures if s.id == "amdgpu-firmware-file-not-loaded" for ex in s.examples)
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", "-f", "json", "-"], input=line,
                          capture_output=True, text=True, timeout=60)
    causes = json.loads(proc.stdout)["causes"]
    assert [(c["runbook"], c["diagnosis"], c["confidence"]) for c in causes][:2] == [
        ("kernel-driver-mismatch", "firmware-missing", "high"), ("gpu-not-visible", "firmware-missing", "medium")]


def test_a_queue_abort_is_not_read_as_a_runtime_that_could_not_start() -> None:
    """The HIP runtime's queue abort with 0 MB free (hip-queue-out-of-resources' real sample) carries ROCr's
    OUT_OF_RESOURCES code, but from a runtime that started: gpu-oom reads it, and the start-up reading of the
    bare code (whose causes it leaves open: the render group, amdgpu, an unsupported GPU) does not apply."""
    line = next(ex for s in load_catalog().signatures if s.id == "hip-queue-out-of-resources" for ex in s.examples)
    proc = subprocess.run([sys.executable, "-m", "rocmdoctor", "explain", "-f", "json", "-"], input=line,
                          capture_output=True, text=True, timeout=60)
    out = json.loads(proc.stdout)
    assert [(c["runbook"], c["diagnosis"]) for c in out["causes"]] == [("gpu-oom", "scratch-allocation-failed")]
    assert out["open_causes"] == []


def test_of_two_equally_sure_readings_of_a_line_the_more_specific_goes_first() -> None:
    """yaksa's init hook prints HIP's "no ROCm-capable device is detected" inside its own words: the bare
    HIP reading (runtime-missing-gpu) and yaksa's (its MPI_Init crash without a GPU) are both medium; the
    one whose pattern names more of the line is the first cause."""
    line = ("HIP Error (yaksuri_hip_init_hook:src/backend/hip/hooks/yaksuri_hip_init_hooks.c,111): "
            "no ROCm-capable device is detected")
    matches = match_text(load_catalog().signatures, line)
    assert {m.diagnosis for m in matches} >= {"runtime-missing-gpu", "yaksa-hip-backend-fails-without-gpu"}
    assert (matches[0].signature_id, matches[0].confidence) == ("yaksa-hip-init-hook-failed", "medium")
    assert matches[0].line == line
