"""app_log parser over real application-log lines (sources in rocmdoctor/simnode/scenarios/gpu_oom.py)."""

from rocmdoctor.parsers import get_parser
from rocmdoctor.parsers.app_log import classify_app_line, parse_app_log
from rocmdoctor.simnode.scenarios import gpu_oom as s

GIB = 1 << 30
MIB = 1 << 20


def test_registered():
    assert get_parser("app_log") is parse_app_log


def test_pytorch_oom_with_most_of_the_gpu_free_is_the_device_refusing():
    """2 MiB refused with 203 of 288 GiB free: the caching allocator would have taken a new
    segment, so it is the device allocation that failed, not fragmentation of its cache."""
    out = parse_app_log("Traceback (most recent call last):\n" + s.TORCH_DEVICE_REFUSED + "\n")
    assert out["lines"] == 2 and out["mentions"] == 0 and out["host_oom"] == []
    (e,) = out["gpu_oom"]
    assert e["lineno"] == 2 and e["framework"] == "pytorch" and e["api"] == "HIP"
    assert e["gpu"] == 7
    assert e["tried_bytes"] == 2 * MIB
    assert e["total_bytes"] == int(287.98 * GIB) and e["free_bytes"] == int(203.49 * GIB)
    assert e["allocated_bytes"] == int(68.63 * GIB)
    assert e["reserved_unallocated_bytes"] == int(14.93 * GIB)
    assert e["device_refused"] is True
    assert e["fragmentation"] is False and out["fragmentation"] is False
    assert out["last"] is e and e["line"].startswith("torch.OutOfMemoryError: HIP out of memory.")


def test_pytorch_fragmentation_when_the_cache_could_hold_the_request():
    e = parse_app_log(s.TORCH_FRAGMENTED)["gpu_oom"][0]
    assert (e["tried_bytes"], e["reserved_unallocated_bytes"]) == (int(6.64 * GIB), int(7.10 * GIB))
    assert e["fragmentation"] is True and e["device_refused"] is False


def test_pytorch_full_gpu_is_not_fragmentation():
    e = parse_app_log(s.TORCH_FULL)["gpu_oom"][0]
    assert e["free_bytes"] == int(780.24 * MIB) and e["tried_bytes"] == int(3.31 * GIB)
    assert e["fragmentation"] is False


def test_pytorch_per_process_cap_is_not_fragmentation():
    e = parse_app_log(s.TORCH_CAPPED)["gpu_oom"][0]
    assert e["allowed_bytes"] == int(1.05 * GIB)
    assert e["allocated_bytes"] == int(1017.01 * MIB) and e["reserved_unallocated_bytes"] == int(54.99 * MIB)
    assert e["fragmentation"] is False


def test_pytorch_pre_2_1_wording():
    e = parse_app_log(s.TORCH_OLD)["gpu_oom"][0]
    assert e["gpu"] == 0 and e["api"] == "CUDA"
    assert e["tried_bytes"] == int(2.26 * GIB) and e["free_bytes"] == int(3.03 * GIB)
    assert e["reserved_unallocated_bytes"] == int(1.24 * GIB) - int(781.59 * MIB)
    # 3.03 GiB "free" and 2.26 GiB asked, but only 489 MiB cached: the cache cannot be what refused it
    # (the thread is open, unexplained), so no fragmentation verdict
    assert e["fragmentation"] is False


def test_llama_cpp_hip_build_and_ollama():
    out = parse_app_log("\n".join(s.GGML_LINES + [s.OLLAMA_LOAD, s.OLLAMA_RUNTIME]))
    kinds = [(e["framework"], e["gpu"], e["tried_bytes"]) for e in out["gpu_oom"]]
    assert kinds == [("ggml", 0, int(14136.04 * MIB)), ("ggml", 0, 14822711296), ("ggml", 0, None),
                     ("ggml", None, None)]
    assert out["gpu_oom"][-1]["line"] == s.OLLAMA_RUNTIME
    assert out["mentions"] == 0   # "failed to allocate compute buffers" is not an OOM by itself


def test_hip_error_code():
    (e,) = parse_app_log(s.HIP_ERROR)["gpu_oom"]
    assert e["framework"] == "hip" and e["gpu"] is None


def test_host_memory_is_not_gpu_oom():
    out = parse_app_log("\n".join([s.OLLAMA_HOST_RAM, s.GGML_PINNED,
                                   "Out of memory: Killed process 15784 (python3) total-vm:11964kB, anon-rss:4288kB"]))
    assert out["gpu_oom"] == [] and out["fragmentation"] is False
    assert [e["framework"] for e in out["host_oom"]] == ["ollama", "ggml", "kernel"]
    assert out["host_oom"][0]["need"] == "164.8 GiB" and out["host_oom"][0]["have"] == "13.4 GiB"
    assert out["host_oom"][2]["pid"] == "15784" and out["host_oom"][2]["comm"] == "python3"


def test_lookalikes_are_only_mentions():
    out = parse_app_log("\n".join(s.LOOKALIKES))
    assert out["gpu_oom"] == [] and out["host_oom"] == []
    assert out["mentions"] == 3            # test names and the --oom-score-adj flag mention OOM
    assert classify_app_line(s.LOOKALIKES[0]) is None   # allocator advice alone says nothing


def test_empty_and_binaryish_text():
    assert parse_app_log("") == {"gpu_oom": [], "host_oom": [], "mentions": 0, "lines": 0,
                                 "fragmentation": False, "last": None}
    assert parse_app_log("\x00\x01 garbage\n")["gpu_oom"] == []


def test_pytorch_2_1_spelling_capacty_is_read():
    """PyTorch 2.1 printed "total capacty" (InvokeAI on an RX 7800 XT, invoke-ai/InvokeAI, verbatim in the corpus)."""
    line = ("torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 6.18 GiB. GPU 0 has a total capacty of "
            "15.98 GiB of which 808.00 MiB is free. Of the allocated memory 8.40 GiB is allocated by PyTorch, and 6.25 GiB "
            "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
            "max_split_size_mb to avoid fragmentation.")
    e = parse_app_log(line)["gpu_oom"][0]
    assert (e["tried_bytes"], e["reserved_unallocated_bytes"]) == (int(6.18 * GIB), int(6.25 * GIB))
    assert e["fragmentation"] is True


def test_ggml_hip_build_cuda_named_out_of_memory_is_a_gpu_oom():
    """ollama 0.1.x's llama.cpp on an RX 7900 XT (ollama/ollama thread, verbatim in the corpus)."""
    text = ("Error: an unknown error was encountered while running the model CUDA error: out of memory\n"
            "  current device: 0, in function alloc at /go/src/github.com/ollama/ollama/llm/llama.cpp/ggml-cuda.cu:233\n"
            "  hipMalloc((void **) &ptr, look_ahead_size)\n")
    (e,) = parse_app_log(text)["gpu_oom"]
    assert e["framework"] == "ggml"


def test_pytorch_oom_wrapped_after_its_first_sentence_is_read_whole():
    """ComfyUI's console (Comfy-Org/ComfyUI#13112) breaks PyTorch's one-line message after
    "HIP out of memory."; the figures on the next lines belong to it."""
    text = (
        "\ntorch.OutOfMemoryError: HIP out of memory. \n"
        "Tried to allocate 26.00 MiB. GPU 0 has a total capacity of 15.92 GiB of which 13.60 GiB is free. \n"
        "Of the allocated memory 1.72 GiB is allocated by PyTorch, and 28.98 MiB is reserved by PyTorch but unallocated.\n"
        " If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
        " to avoid fragmentation. \n"
    )
    out = parse_app_log(text)
    (e,) = out["gpu_oom"]
    assert e["lineno"] == 2 and e["tried_bytes"] == 26 * MIB
    assert e["free_bytes"] == int(13.60 * GIB) and e["total_bytes"] == int(15.92 * GIB)
    assert e["device_refused"] is True and e["fragmentation"] is False


def test_a_request_of_a_quarter_of_the_free_memory_refused_is_the_device() -> None:
    """Comfy-Org/ComfyUI (in the corpus): 432 MiB refused with 7.12 of 15.92 GiB free, under half of the
    GPU free but 16x the request; an APU refusing most of its free figure is not (lemonade-sdk/vllm-rocm#5)."""
    line = ("HIP out of memory. Tried to allocate 432.00 MiB. GPU 0 has a total capacity of 15.92 GiB of which 7.12 GiB"
            " is free. Of the allocated memory 8.08 GiB is allocated by PyTorch, and 321.96 MiB is reserved by PyTorch"
            " but unallocated.")
    hit = classify_app_line(line)
    assert hit is not None and hit["device_refused"] is True and hit["fragmentation"] is False
    apu = ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 12.95 GiB. GPU 0 has a total capacity of"
           " 127.00 GiB of which 18.55 GiB is free. Of the allocated memory 99.37 GiB is allocated by PyTorch, and"
           " 121.80 MiB is reserved by PyTorch but unallocated.")
    hit = classify_app_line(apu)
    assert hit is not None and hit["device_refused"] is False


def test_clr_allocation_failure_line_carries_its_figures() -> None:
    """CLR's own line (hip_memory.cpp ihipMalloc, AMD_LOG_LEVEL>=1) from ROCm/ROCm#2480: 4 bytes refused with
    2.3 of 17 GB free is the device refusing; a request above what was free is memory used up."""
    line = (":1:hip_memory.cpp           :303 : 9616777863 us: 4277 : [tid:0x7f2accbfe6c0] Allocation failed : "
            "Device memory : required :4 | free :2314338304 | total :17163091968 ")
    e = classify_app_line(line)
    assert e is not None and e["kind"] == "gpu" and e["framework"] == "hip"
    assert (e["tried_bytes"], e["free_bytes"], e["total_bytes"]) == (4, 2314338304, 17163091968)
    assert e["device_refused"] is True
    used_up = classify_app_line(line.replace("required :4 ", "required :4294967296 "))
    assert used_up is not None and used_up["device_refused"] is False
