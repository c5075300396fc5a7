"""llama.cpp's (ggml HIP build) job-log lines, in the exact form of ggml-org/llama.cpp#22013:

    ggml_cuda_init: found 2 ROCm devices (Total VRAM: 31898 MiB):
      Device 0: AMD Radeon RX 9070, gfx1201 (0x1201), VMM: no, Wave Size: 32, VRAM: 16304 MiB
      Device 1: AMD Radeon 740M Graphics, gfx1103 (0x1103), VMM: no, Wave Size: 32, VRAM: 15594 MiB
    ...
    /home/me/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:97: ROCm error
    ggml_cuda_compute_forward: MUL_MAT failed
    ROCm error: invalid device function
      current device: 1, in function ggml_cuda_compute_forward at /home/me/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:2932
      err

`Wave Size: 64` for GCN/CDNA targets as in iacopPBK/llama.cpp-gfx906#15 (gfx906).
"""

from __future__ import annotations

from rocmdoctor.simnode.gpu import MIB, SimGPU


def device_list(gpus: list[SimGPU]) -> list[str]:
    """ggml_cuda_init's device list for these GPUs, in the given (HIP) order."""
    mib = [g.vram_total // MIB for g in gpus]
    out = [f"ggml_cuda_init: found {len(gpus)} ROCm devices (Total VRAM: {sum(mib)} MiB):"]
    for i, (g, m) in enumerate(zip(gpus, mib)):
        wave = 64 if g.gfx_target.startswith(("gfx8", "gfx9")) else 32
        out.append(f"  Device {i}: {g.market_name}, {g.gfx_target} (0x{g.gfx_target[3:]}), VMM: no, "
                   f"Wave Size: {wave}, VRAM: {m} MiB")
    return out


def kernel_failure(device: int, error: str = "invalid device function", op: str = "MUL_MAT",
                   src: str = "/home/me/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu") -> list[str]:
    """The abort ggml prints when a kernel fails on `device`."""
    return [f"{src}:97: ROCm error", f"ggml_cuda_compute_forward: {op} failed", f"ROCm error: {error}",
            f"  current device: {device}, in function ggml_cuda_compute_forward at {src}:2932", "  err"]
