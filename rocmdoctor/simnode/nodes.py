"""Ready-made healthy nodes; scenarios start from these and change one thing."""

from __future__ import annotations

from rocmdoctor.simnode.gpu import mi300x_gpus
from rocmdoctor.simnode.node import SimNode


def healthy_mi300x(gpus: int = 8, name: str = "mi300x-01") -> SimNode:
    """8x MI300X (OAM), Ubuntu 22.04, ROCm 6.2 with amdgpu-dkms 6.8.5, all GPUs idle and cool."""
    return SimNode(name, gpus=mi300x_gpus(gpus),
                   description=f"healthy {gpus}x AMD Instinct MI300X, Ubuntu 22.04, ROCm 6.2")


def healthy_no_gpu(name: str = "cpu-01") -> SimNode:
    """A CPU-only node: no 0x1002 device on PCI, amdgpu neither installed nor loaded,
    no /dev/kfd, no ROCm (so no amd-smi, rocm-smi or rocminfo)."""
    node = SimNode(name, gpus=[], rocm_version=None, description="healthy CPU-only node (no GPU, no ROCm)")
    return node.remove_tool("dkms")
