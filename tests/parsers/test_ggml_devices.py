"""ggml_devices parser over real llama.cpp job-log lines (sources in rocmdoctor/parsers/ggml_devices.py)."""

from pathlib import Path

from rocmdoctor.parsers import get_parser
from rocmdoctor.parsers.ggml_devices import parse_ggml_devices

HERE = Path(__file__).resolve().parents[1]
LLAMA_22013 = HERE / "incidents/gpu-not-visible/llamacpp-8500g-740m-igpu-invalid-device-function/bundle/files/ticket/llama.log"

# iacopPBK/llama.cpp-gfx906#15 (verbatim): target with feature suffixes, no VRAM field
GFX906 = """$ ./llama-cli --version
ggml_cuda_init: found 1 ROCm devices:
  Device 0: AMD Radeon Graphics, gfx906:sramecc+:xnack- (0x906), VMM: no, Wave Size: 64
version: 7798 (c7dd689d)
"""
# likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU#19 (verbatim, ollama on Windows): compute capability form
OLLAMA_890M = """time=2024-12-26T06:59:16.928+08:00 level=INFO source=runner.go:945 msg="starting go runner"
ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no
ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no
ggml_cuda_init: found 1 ROCm devices:
  Device 0: AMD Radeon(TM) 890M Graphics, compute capability 11.5, VMM: no
time=2024-12-26T06:59:19.174+08:00 level=INFO source=runner.go:946 msg=system info="ROCm : NO_PEER_COPY = 1 | PEER_MAX_BATCH_SIZE = 128 | CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | LLAMAFILE = 1 | AARCH64_REPACK = 1 | cgo(clang)" threads=4
"""
# ggml-org/llama.cpp#8504 (verbatim): a build that keeps CUDA's names
CUDA_NAMED = """ggml_cuda_compute_forward: RMS_NORM failed
CUDA error: invalid device function
  current device: 0, in function ggml_cuda_compute_forward at ggml/src/ggml-cuda.cu:2288
  err
"""


def test_registered():
    assert get_parser("ggml_devices") is parse_ggml_devices


def test_device_list_and_the_failed_device_of_llama_cpp_22013():
    out = parse_ggml_devices(LLAMA_22013.read_text())
    assert out["found"] == 2
    assert [(d["index"], d["name"], d["gfx"]) for d in out["devices"]] == [
        (0, "AMD Radeon RX 9070", "gfx1201"), (1, "AMD Radeon 740M Graphics", "gfx1103")]
    assert out["devices"][1]["lineno"] == 4
    (f,) = out["failures"]
    assert (f["device"], f["error"], f["function"], f["lineno"]) == (1, "invalid device function",
                                                                    "ggml_cuda_compute_forward", 11)
    assert f["line"].startswith("current device: 1, in function ggml_cuda_compute_forward at /home/me/")


def test_target_with_feature_suffixes():
    (d,) = parse_ggml_devices(GFX906)["devices"]
    assert (d["index"], d["name"], d["gfx"]) == (0, "AMD Radeon Graphics", "gfx906")


def test_compute_capability_form_has_no_target():
    out = parse_ggml_devices(OLLAMA_890M)
    (d,) = out["devices"]
    assert (d["name"], d["gfx"]) == ("AMD Radeon(TM) 890M Graphics", None)
    assert out["failures"] == []


def test_cuda_named_error_and_no_device_list():
    out = parse_ggml_devices(CUDA_NAMED)
    assert out["devices"] == [] and out["found"] is None
    assert [(f["device"], f["error"]) for f in out["failures"]] == [(0, "invalid device function")]


def test_a_restarted_server_keeps_its_last_device_list():
    text = GFX906 + LLAMA_22013.read_text()
    assert [d["gfx"] for d in parse_ggml_devices(text)["devices"]] == ["gfx1201", "gfx1103"]


def test_other_text_gives_empty_lists():
    out = parse_ggml_devices("Device 0: this is prose, not a device list\n\x00\xff strange bytes\n")
    assert out == {"devices": [], "found": None, "failures": [], "lines": 2}
