"""The ticket readers of batch 2026-11-26h's fixes, on the real lines the corpus holds: a `docker run`
line (its GPU flags), a job environment's visibility variables, hipblaslt-bench's result."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.container_run import parse_container_run
from rocmdoctor.parsers.env_lines import parse_env_lines

CASES = Path(__file__).resolve().parents[1] / "incidents"


def _ticket(case: str, name: str) -> str:
    return (CASES / case / "bundle" / "files" / "ticket" / name).read_text()


def test_a_prompt_s_docker_run_line_without_devices() -> None:
    """ROCm/ROCm (Arch gfx803 thread): a prompt, `--group-add=video`, no --device at all."""
    (run,) = parse_container_run(_ticket("container-mount-failure/arch-gfx803-docker-run-without-kfd-device",
                                         "container.log"))["runs"]
    assert run["engine"] == "docker" and run["lineno"] == 1
    assert (run["devices"], run["group_add"], run["privileged"]) == ([], ["video"], False)
    assert run["security_opt"] == ["seccomp=unconfined"] and run["image"] == "rocm63_pt25:latest"
    assert (run["kfd"], run["dri"]) == (False, False)


def test_quoted_devices_and_render_nodes() -> None:
    """ROCm/ROCm-docker#36: `--device="/dev/kfd" --device="/dev/dri/renderD128"`: both reach the container."""
    (run,) = parse_container_run(_ticket("container-mount-failure/docker-18.02-rocm-terminal-rocminfo-4104-non-root",
                                         "docker.log"))["runs"]
    assert run["devices"] == ["/dev/kfd", "/dev/dri/renderD128", "/dev/dri/renderD129"]
    assert (run["kfd"], run["dri"], run["image"]) == (True, True, "rocm/rocm-terminal")


def test_continued_privileged_and_cdi_lines() -> None:
    text = ("$ sudo podman run --rm \\\n  --device amd.com/gpu=all \\\n  docker.io/rocm/pytorch:latest rocminfo\n"
            "docker run --privileged -v /models:/models ollama/ollama:rocm\n")
    cdi, priv = parse_container_run(text)["runs"]
    assert (cdi["engine"], cdi["lineno"], cdi["kfd"], cdi["image"]) == ("podman", 1, True, "docker.io/rocm/pytorch:latest")
    assert (priv["privileged"], priv["kfd"], priv["dri"]) == (True, True, True)
    assert parse_container_run("the docker daemon runs")["runs"] == []


def test_the_amd_container_runtime_asked_for_gpus() -> None:
    """ROCm/container-toolkit#116: `--runtime=amd -e AMD_VISIBLE_DEVICES=<serial>` and no --device: the runtime adds
    the devices; without AMD_VISIBLE_DEVICES (or with another runtime) it adds none."""
    (run,) = parse_container_run(_ticket("container-mount-failure/share-ctk116-asic-serial-uuid", "docker-run.log"))["runs"]
    assert (run["runtime"], run["env"], run["devices"]) == ("amd", {"AMD_VISIBLE_DEVICES": "0xDA20E05348498592"}, [])
    assert (run["amd_runtime"], run["kfd"], run["dri"]) == ("0xDA20E05348498592", True, True)
    (bare,) = parse_container_run("docker run --runtime=amd rocm/rocm-terminal")["runs"]
    (runc,) = parse_container_run("docker run --runtime runc -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal")["runs"]
    assert (bare["amd_runtime"], bare["kfd"], runc["amd_runtime"], runc["kfd"]) == (None, False, None, False)


def test_visibility_variables_of_a_ray_worker_dump() -> None:
    """vllm-project/vllm#21457: the worker's environment, values quoted."""
    out = parse_env_lines(_ticket("gpu-not-visible/ray-vllm-rocr-and-cuda-visible-devices-invalid-ordinal", "env.log"))
    assert out["vars"] == {"ROCR_VISIBLE_DEVICES": "1", "CUDA_VISIBLE_DEVICES": "0,1"}
    assert out["lines"]["CUDA_VISIBLE_DEVICES"] == (2, 'CUDA_VISIBLE_DEVICES="0,1"')
    assert parse_env_lines("export HIP_VISIBLE_DEVICES=2\ndeclare -x ROCR_VISIBLE_DEVICES=\"\"\nPATH=/usr/bin\n")["vars"] == {
        "HIP_VISIBLE_DEVICES": "2", "ROCR_VISIBLE_DEVICES": ""}


def test_a_make_log_pasted_alone_names_the_amdgpu_tree() -> None:
    """ROCm/ROCm (amdgpu-dkms 6.12 on mainline 6.12.3): no dkms line, the compiler stops in amdkcl's include chain."""
    from rocmdoctor.parsers.dkms_build import parse_dkms_build

    out = parse_dkms_build(_ticket("kernel-driver-mismatch/dkms-mainline-6-12-3-kcl-kvrealloc-conflict", "make.log"))
    assert out["amd_tree"] and out["failures"] == [] and out["first_error"]["lineno"] == 7
    assert parse_dkms_build("drivers/foo.c:1:2: error: x")["amd_tree"] is False


def test_env_lines_after_a_shell_prompt() -> None:
    """A pasted shell session (mcmonkeyprojects/SwarmUI#566): the prompt is not part of the assignment."""
    text = "$ export ROCR_VISIBLE_DEVICES=1\n$ export HIP_VISIBLE_DEVICES=1\n$ python\n>>> import torch\n"
    assert parse_env_lines(text)["vars"] == {"ROCR_VISIBLE_DEVICES": "1", "HIP_VISIBLE_DEVICES": "1"}
    assert parse_env_lines("user@node:~$ export CUDA_VISIBLE_DEVICES=0")["vars"] == {"CUDA_VISIBLE_DEVICES": "0"}
    assert parse_env_lines("echo $ROCR_VISIBLE_DEVICES=1 x")["vars"] == {}


def test_env_lines_before_a_command_after_a_fish_prompt() -> None:
    """JuliaGPU/AMDGPU.jl (in the corpus): `HIP_VISIBLE_DEVICES=-1 julia ...` after fish's prompt gives julia that
    value; other assignments on the line are not GPU variables."""
    text = 'vchuravy@odin ~> HIP_VISIBLE_DEVICES=-1 julia --project=repr_amd -e "using AMDGPU"\n'
    out = parse_env_lines(text)
    assert out["vars"] == {"HIP_VISIBLE_DEVICES": "-1"} and out["lines"]["HIP_VISIBLE_DEVICES"][0] == 1
    assert parse_env_lines("HSA_OVERRIDE_GFX_VERSION=10.3.0 ROCR_VISIBLE_DEVICES=0 python x.py")["vars"] == {
        "ROCR_VISIBLE_DEVICES": "0"}
    assert parse_env_lines("julia> x = 1\nprint(HIP_VISIBLE_DEVICES=1)")["vars"] == {}


def test_a_run_through_the_amd_runtime_is_not_a_container_without_devices(tmp_path: Path) -> None:
    """ROCm/container-toolkit#116 as a triage reads it: the runtime's "Ignoring [...] GPUs as they are invalid" names
    the cause, not a missing --device."""
    from rocmdoctor.status import State
    from rocmdoctor.testing.triage_helpers import triage_bundle_step

    log = _ticket("container-mount-failure/share-ctk116-asic-serial-uuid", "docker-run.log")
    rb, step = triage_bundle_step(tmp_path, {"files/ticket/docker-run.log": log}, "container-mount-failure",
                                  "runline", vars={"log": "/ticket/docker-run.log"})
    assert step.state == State.PASS and "asks the AMD container runtime" in step.check.message
    assert step.check.evidence == (f"/ticket/docker-run.log:1: {log.splitlines()[0]}",)
    assert [d.diagnosis_id for d in rb.diagnoses] == ["amd-visible-devices-names-missing-gpu"]
