"""A nearby line can change what a line means (issue 41, item 6): a /dev/kfd EPERM after an `srun`
that asked for no GPU is Slurm's device constraint (ComputeCanada/puppet-magic_castle#460, verbatim
in the corpus), not a container's missing device rule; malformed context readings are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rocmdoctor.catalog.schema_signatures import parse_signatures
from rocmdoctor.engine.signatures import explain_text
from rocmdoctor.errors import DefinitionError

EPERM = "Unable to open /dev/kfd read-write: Operation not permitted"
SRUN = "[ocaisa@login1 ~]$ srun -N 1 --ntasks 1 --cpus-per-task 8 --mem=28G -p x86-64-rocm-zen2-node --time=90:00 --pty /bin/bash"


def _by_id(text: str) -> dict:
    return {m.signature_id: m for m in explain_text(text)}


def test_an_srun_without_a_gpu_request_turns_eperm_into_the_jobs_request() -> None:
    m = _by_id(f"{SRUN}\nROCk module version 6.12.12 is loaded\n{EPERM}\n")["kfd-open-eperm-container"]
    assert (m.runbook, m.diagnosis, m.severity) == ("gpu-not-visible", "slurm-job-requested-no-gpu", "warning")
    assert m.context_line.endswith(SRUN) and "--gres=gpu:1" in m.means


@pytest.mark.parametrize("text", [EPERM, f"{SRUN.replace('--pty', '--gres=gpu:1 --pty')}\n{EPERM}"])
def test_without_that_line_the_usual_reading_stands(text: str) -> None:
    m = _by_id(text)["kfd-open-eperm-container"]
    assert m.diagnosis == "kfd-device-not-allowed" and m.context_line == ""


def test_a_context_line_far_from_the_match_is_not_read() -> None:
    text = SRUN + "\n" + "filler\n" * 60 + EPERM
    assert _by_id(text)["kfd-open-eperm-container"].diagnosis == "kfd-device-not-allowed"


@pytest.mark.parametrize("reading, error", [
    ({"line": "(a+)+$", "diagnosis": "x", "means": "m", "example": "aaa"}, "refused"),
    ({"line": "srun .*", "diagnosis": "x", "means": "m", "example": "sbatch job.sh"}, "does not match"),
    ({"line": "srun .*", "diagnosis": "x", "means": "m", "example": "srun a", "within": 0}, "within"),
    ({"line": "srun .*", "diagnosis": "x", "means": "m"}, "example"),
])
def test_malformed_context_readings_are_refused_with_file_and_line(tmp_path: Path, reading: dict, error: str) -> None:
    doc = {"signatures": [{"id": "s", "family": "f", "pattern": "Something broke", "means": "m", "runbook": "gpu-oom",
                           "diagnosis": "d", "source": "https://github.com/a/b/issues/1", "example": "Something broke",
                           "context": [reading]}]}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(doc))
    from rocmdoctor.catalog.yaml_lines import load_yaml

    with pytest.raises(DefinitionError, match=error) as exc:
        parse_signatures(load_yaml(path.read_text(), str(path)), str(path), {"gpu-oom": None})
    assert str(path) in str(exc.value)


# ROCm/ROCm#5632 (Fedora 43's amd-smi, description verbatim): the assertion line just before bash's report of
# the abort says why amd-smi aborted; without it the abort alone stays a crash of the tool
ASSERTION = ("/usr/include/c++/15/bits/stl_vector.h:1263: std::vector<_Tp, _Alloc>::reference std::vector<_Tp, "
             "_Alloc>::operator[](size_type) [with _Tp = void*; _Alloc = std::allocator<void*>; reference = void*&; "
             "size_type = long unsigned int]: Assertion '__n < this->size()' failed.")
ABORT = "Aborted                    (core dumped) amd-smi version"


def test_an_assertion_before_amd_smis_abort_names_the_assertion() -> None:
    m = _by_id(f"{ASSERTION}\n{ABORT}\n")["amd-smi-process-aborted"]
    assert (m.diagnosis, m.severity) == ("amd-smi-cli-assertion-abort", "warning")
    assert "_GLIBCXX_ASSERTIONS" in m.means and m.context_line.endswith("Assertion '__n < this->size()' failed.")


def test_amd_smis_abort_alone_is_a_crash_of_the_tool() -> None:
    m = _by_id(f"{ABORT}\n")["amd-smi-process-aborted"]
    assert (m.diagnosis, m.severity, m.context_line) == ("amd-smi-cli-aborted", "warning", "")
