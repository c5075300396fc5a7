"""Simulated gpu-oom incidents: VRAM held by stale processes, app-log OOMs, host OOM kills.

Every log line below is verbatim from the public report named beside it.
"""

from __future__ import annotations

# --- real application-log lines (kind, text, source) --------------------------------------
#: PyTorch 2.x on an MI300-class GPU (287.98 GiB): OOM with 203 GiB free and 14.93 GiB
#: reserved-but-unallocated, i.e. fragmentation (pytorch/pytorch#175431, label module: rocm)
TORCH_FRAGMENTED = (
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB. GPU 7 has a total capacity of "
    "287.98 GiB of which 203.49 GiB is free. Of the allocated memory 68.63 GiB is allocated by PyTorch, and "
    "14.93 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
TORCH_FRAGMENTED_SRC = "https://github.com/pytorch/pytorch/issues/175431"

#: PyTorch on ROCm, a genuinely full GPU (780 MiB free, 75 MiB cached) (kyuz0/amd-strix-halo-image-video-toolboxes#3)
TORCH_FULL = (
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 3.31 GiB. GPU 0 has a total capacity of "
    "128.00 GiB of which 780.24 MiB is free. Of the allocated memory 57.70 GiB is allocated by PyTorch, and "
    "75.82 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
TORCH_FULL_SRC = "https://github.com/kyuz0/amd-strix-halo-image-video-toolboxes/issues/3"

#: PyTorch test run under a per-process cap (`1.05 GiB allowed;`, private pools) (ROCm/TheRock#2118)
TORCH_CAPPED = (
    "2025-11-14T08:52:38.3746210Z FAILED [0.0004s] external-builds/pytorch/pytorch/test/test_autograd.py::"
    "TestAutogradDeviceTypeCUDA::test_set_requires_grad_only_for_floats_cuda_int32 - torch.OutOfMemoryError: "
    "HIP out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 287.98 GiB of which 275.86 GiB "
    "is free. 1.05 GiB allowed; Of the allocated memory 1017.01 MiB is allocated by PyTorch, with 17.00 MiB "
    "allocated in private pools (e.g., HIP Graphs), and 54.99 MiB is reserved by PyTorch but unallocated. If "
    "reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
    "avoid fragmentation.  See documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
TORCH_CAPPED_SRC = "https://github.com/ROCm/TheRock/issues/2118"

#: the pre-2.1 PyTorch wording (same allocator message, CUDA build) (pytorch/pytorch#59778)
TORCH_OLD = ("CUDA out of memory. Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; 781.59 MiB "
             "already allocated; 3.03 GiB free; 1.24 GiB reserved in total by PyTorch)")
TORCH_OLD_SRC = "https://github.com/pytorch/pytorch/issues/59778"

#: llama.cpp HIP build: the allocator keeps its CUDA names (ggml-org/llama.cpp#16725, ROCm0 buffer)
GGML_LINES = [
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 14136.04 MiB on device 0: cudaMalloc failed: out of memory",
    "ggml_gallocr_reserve_n: failed to allocate ROCm0 buffer of size 14822711296",
    "graph_reserve: failed to allocate compute buffers",
]
GGML_SRC = "https://github.com/ggml-org/llama.cpp/issues/16725"

#: ollama (ROCm): model load (ollama/ollama#11265) and runtime (ollama/ollama#11713, journal form)
OLLAMA_LOAD = "llama_model_load: error loading model: unable to allocate ROCm0 buffer"
OLLAMA_LOAD_SRC = "https://github.com/ollama/ollama/issues/11265"
OLLAMA_RUNTIME = "Aug 13 16:58:56 monster ollama[3010374]: ROCm error: out of memory"
OLLAMA_RUNTIME_SRC = "https://github.com/ollama/ollama/issues/11713"

#: HIP runtime error code in an HPC code on MI250X (BLAST-WarpX/warpx#3398, OLCF Crusher)
HIP_ERROR = ("amrex::Abort::1::HIP error in file WarpX/build/_deps/fetchedamrex-src/Src/Base/AMReX_GpuDevice.cpp "
             "line 402 hipErrorOutOfMemory !!!")
HIP_ERROR_SRC = "https://github.com/BLAST-WarpX/warpx/issues/3398"

#: host memory, not VRAM: ollama's system-memory check (ollama/ollama#10920) and ggml pinned host
#: memory (ggml-org/llama.cpp#9629, issue title)
OLLAMA_HOST_RAM = "Error: model requires more system memory (164.8 GiB) than is available (13.4 GiB)"
OLLAMA_HOST_RAM_SRC = "https://github.com/ollama/ollama/issues/10920"
GGML_PINNED = "ggml_cuda_host_malloc: failed to allocate 1900,00 MiB of pinned memory: invalid argument"
GGML_PINNED_SRC = "https://github.com/ggml-org/llama.cpp/issues/9629"

#: lines that only LOOK like an OOM (constructed look-alikes: advice text, a test name, a flag, an env dump)
LOOKALIKES = [
    "If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True "
    "to avoid fragmentation.",
    "test/test_cuda.py::TestCuda::test_out_of_memory PASSED",
    "test_oom_recovery.py::test_oom_handler_restarts_worker PASSED",
    "+ python serve.py --max-memory 0:180GiB --oom-score-adj 500",
    "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True",
]
