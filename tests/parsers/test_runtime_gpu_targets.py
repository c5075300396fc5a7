"""runtime_gpu_targets over real job logs: the corpus cases' own files (each case.md names its thread) and
lines from the threads the signatures cite (sources in rocmdoctor/parsers/runtime_gpu_targets.py)."""

from pathlib import Path

from rocmdoctor.parsers import get_parser
from rocmdoctor.parsers.runtime_gpu_targets import parse_runtime_gpu_targets

CASES = Path(__file__).resolve().parents[1] / "incidents" / "gpu-not-visible"


def _targets(text: str) -> list[tuple[str, int]]:
    return [(g["gfx"], g["lineno"]) for g in parse_runtime_gpu_targets(text)["gpus"]]


def test_rocblas_names_the_arch_it_found_no_tensile_library_for() -> None:
    log = (CASES / "xla-jax-gfx906-rocblas-abort/bundle/files/ticket/jax.log").read_text()  # ROCm/rocm-jax#389
    rows = parse_runtime_gpu_targets(log)["gpus"]
    assert [r["gfx"] for r in rows] == ["gfx906"]
    assert rows[0]["line"].startswith("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat")
    assert rows[0]["from"].startswith("rocBLAS") and rows[0]["name"] == "the job's GPU"


def test_ggml_device_list_and_hips_code_object_lookup_name_one_target_once() -> None:
    log = (CASES / "gfx1152-llama-server-no-code-object-segfault/bundle/files/ticket/job.log").read_text()
    rows = parse_runtime_gpu_targets(log)["gpus"]
    assert [r["gfx"] for r in rows] == ["gfx1152"]          # HIP's line and ggml's device line: one GPU
    assert rows[0]["lineno"] == 5 and "hip_fatbin.cpp" in rows[0]["line"]


def test_tensorflow_and_ollama_lines_name_the_device_and_its_target() -> None:
    tf = (CASES / "rx6600xt-gfx1032-tensorflow-rocm-ignored-gpu/bundle/files/ticket").glob("*")
    rows = [r for f in tf for r in parse_runtime_gpu_targets(f.read_text())["gpus"]]
    assert [(r["gfx"], r["name"]) for r in rows] == [("gfx1032", "AMD Radeon RX 6600 XT")]
    ollama = (CASES / "ollama-rx6750-gfx1031-not-supported/bundle/files/ticket/ollama-service.log").read_text()
    assert [g for g, _ in _targets(ollama)] == ["gfx1031"]


def test_ollama_forms_of_the_cited_threads() -> None:
    # ollama/ollama#4099 era (amd_linux.go:116) and Jeffser/Alpaca#139 (a paste starting inside the message)
    old = ('time=2024-05-02T12:17:03.657Z level=WARN source=amd_linux.go:116 msg="amdgpu [0] gfx1103 is not supported by'
           ' /tmp/ollama2145067703/rocm [gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942]"')
    cut = ('amdgpu is not supported" gpu=0 gpu_type=gfx1010 library=/app/lib/ollama supported_types="[gfx1030 gfx1100'
           ' gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942]')
    # ollama/ollama#3243: the inference compute line with an APU's PCI id as its name
    compute = ('time=2024-06-12T13:25:08.950Z level=INFO source=types.go:71 msg="inference compute" id=0 library=rocm'
               ' compute=gfx1033 driver=0.0 name=1002:163f total="1.0 GiB" available="1.0 GiB"')
    assert _targets("\n".join((old, cut, compute))) == [("gfx1103", 1), ("gfx1010", 2), ("gfx1033", 3)]
    assert parse_runtime_gpu_targets(compute)["gpus"][0]["name"] == "1002:163f"


def test_a_target_a_program_was_built_for_is_not_the_gpu() -> None:
    # rocBLAS' list of the Tensile files it has (ROCm/ROCm#4625) and a build flag name targets, not the device
    text = ('"/opt/rocm-6.4.0/lib/rocblas/library/TensileLibrary_lazy_gfx1101.dat"\n'
            "export AMDGPU_TARGETS=gfx1030\n"
            'msg="inference compute" id=cpu library=cpu compute="" name=cpu\n')
    assert parse_runtime_gpu_targets(text) == {"gpus": []}
    assert get_parser("runtime_gpu_targets")("no gpu here\n") == {"gpus": []}


def test_a_job_log_alone_settles_whether_the_gpu_is_on_its_releases_list(tmp_path: Path) -> None:
    """ROCm/rocm-jax#389: only the job's rocBLAS abort and a report stating ROCm 7.x; the log's target is judged
    against the release's own list, both named in the evidence."""
    from rocmdoctor.status import State
    from rocmdoctor.testing.triage_helpers import triage_bundle_step

    ticket = CASES / "xla-jax-gfx906-rocblas-abort/bundle/files/ticket"
    files = {f"files/ticket/{p.name}": p.read_text() for p in ticket.iterdir()}
    report, support = triage_bundle_step(tmp_path, files, "gpu-not-visible", "gpu_support",
                                         vars={"log": "/ticket/jax.log", "report": "/ticket/report.md"})
    assert support.check is not None and support.check.state == State.WARN
    assert support.check.message.startswith("gfx906 (the job's GPU) is not on ROCm 7.")
    assert any(e.startswith("rocBLAS (no Tensile library for the GPU's arch), log line 1: gfx906") for e in support.check.evidence)
    assert any(e.startswith("ROCm 7.") and "supported GPUs" in e for e in support.check.evidence)
    assert "unsupported-gpu" in [d.diagnosis_id for d in report.diagnoses]
