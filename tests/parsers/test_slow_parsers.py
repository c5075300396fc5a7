"""The gpu-slow runbook's parsers on real files: PSI (kernel 4.20 idle, the PSI v2 posting's thrashing
machine, Flatcar), cgroup v2/v1 cpu.stat and quota files (k0s, podman, koordinator, EKS), /proc/PID/status
lines and CPU lists (prometheus/procfs, a Slurm job, a two-socket cpuset). Sources: each folder's SOURCES.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError
from rocmdoctor.parsers.gpu_jobs import cpu_list, parse_gpu_jobs
from rocmdoctor.parsers.psi import parse_psi

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "outputs"


def _text(rel: str) -> str:
    return (OUT / rel).read_text()


def test_psi_files() -> None:
    thrash = parse_psi(_text("psi/memory-thrashing-lkml-psi-v2.txt"))
    assert thrash["some"]["avg60"] == 68.52 and thrash["full"]["avg60"] == 58.06
    assert thrash["full"]["line"] == "full avg10=57.59 avg60=58.06 avg300=60.38 total=3300487258"
    cpu = parse_psi(_text("psi/cpu-flatcar.txt"))
    assert cpu["some"]["avg300"] == 0.28 and cpu["full"] is None
    io = parse_psi(_text("psi/io-flatcar.txt"))
    assert io["full"]["total"] == 2334731
    # `grep -n . /proc/pressure/*` prefixes path:line: the files themselves are what follows
    files: dict[str, str] = {}
    for line in _text("psi/grep-n-all-kernel-4.20-idle.txt").splitlines():
        path, _, rest = line.partition(":")
        files[path] = files.get(path, "") + rest.split(":", 1)[1] + "\n"
    assert parse_psi(files["/proc/pressure/memory"])["full"]["avg10"] == 0.0
    with pytest.raises(ParseError):
        parse_psi("some avg10=0.00\n")


@pytest.mark.parametrize("text, cpus", [
    ("0,5,32,37", [0, 5, 32, 37]), ("4-7", [4, 5, 6, 7]), ("16-31,56-71", list(range(16, 32)) + list(range(56, 72))),
    ("", []),
])
def test_cpu_lists(text: str, cpus: list[int]) -> None:
    assert cpu_list(text) == cpus


def test_cpu_list_refuses_other_text() -> None:
    with pytest.raises(ParseError):
        cpu_list("0-3;rm")


def _status_lines(rel: str) -> str:
    keep = ("Name", "Uid", "Threads", "Cpus_allowed_list", "Mems_allowed_list")
    return "".join(ln + "\n" for ln in _text(rel).splitlines() if ln.split(":", 1)[0] in keep)


def test_gpu_jobs_v2_block_from_real_files() -> None:
    text = ("gpu 45128 0 1280\ngpu 60114 0 9728\n== 26231\nvram 45128 161061273600\nvram 60114 0\nqueue 45128\n"
            + _status_lines("proc-status/status-prometheus-procfs-fixture.txt")
            + "cgroup2 /kubepods.slice/pod.slice/cri-containerd-1.scope\n--- cpu.max\n"
            + _text("cgroup-cpu/v2-cpu.max-podman-cpus-0.42.txt") + "--- cpu.stat\n"
            + _text("cgroup-cpu/v2-cpu.stat-k0s-container-throttled.txt") + "--- environ\nAMD_SERIALIZE_KERNEL=3\n")
    doc = parse_gpu_jobs(text)
    assert doc["gpus"] == {"45128": "0000:05:00.0", "60114": "0000:26:00.0"}
    (p,) = doc["processes"]
    assert (p["pid"], p["name"], p["uid"], p["threads"], p["cpus_text"], p["mems"]) == (26231, "prometheus", 1000, 1, "0-7", [0])
    assert p["gpus"] == ["0000:05:00.0"]                 # the GPU with VRAM and a queue, not the one merely opened
    assert (p["quota_us"], p["period_us"], p["cgroup_version"]) == (42000, 100000, 2)
    assert p["cpu_stat"]["nr_throttled"] == 496 and p["cpu_stat"]["throttled_usec"] == 395384834
    assert p["env"] == {"AMD_SERIALIZE_KERNEL": "3"}


def test_gpu_jobs_v1_block_from_real_files() -> None:
    text = ("== 7\nvram 45128 1048576\nCpus_allowed_list:      4-7\nMems_allowed_list:      1\ncgroup1 /kubepods/burstable/pod1\n"
            "--- cpu.cfs_quota_us\n" + _text("cgroup-cpu/v1-cpu.cfs_quota_us-koordinator.txt")
            + "--- cpu.cfs_period_us\n" + _text("cgroup-cpu/v1-cpu.cfs_period_us-koordinator.txt")
            + "--- cpu.stat\n" + _text("cgroup-cpu/v1-cpu.stat-koordinator-throttled.txt"))
    (p,) = parse_gpu_jobs(text)["processes"]
    assert (p["quota_us"], p["period_us"], p["cgroup_version"]) == (100000, 100000, 1)
    assert p["cpu_stat"] == {"nr_periods": 3076, "nr_throttled": 34, "throttled_time": 12070000}
    assert p["cpus"] == [4, 5, 6, 7] and p["gpus"] == ["gpu_id 45128"]


def test_gpu_jobs_refuses_unframed_text() -> None:
    with pytest.raises(ParseError):
        parse_gpu_jobs("Name: x\n")
    assert parse_gpu_jobs("") == {"gpus": {}, "processes": []}


def test_the_probe_reads_every_runtime_flag_the_data_names() -> None:
    """The probe greps /proc/PID/environ for a fixed list: every flag of runtime_flags.yaml is in it."""
    import yaml

    from rocmdoctor.catalog.datafiles import load_data

    checks = yaml.safe_load((Path(__file__).resolve().parents[2] / "checks" / "gpu_jobs.yaml").read_text())
    script = checks[0]["gather"]["jobs"]["command"][2]
    listed = set(re.search(r"grep -E '\^\(([^)]*)\)='", script).group(1).split("|"))
    assert {f["name"] for f in load_data("runtime_flags")["flags"]} <= listed
    clr = _text("runtime-flags/clr-flags.txt")
    for f in load_data("runtime_flags")["flags"]:
        if "clr" in f["source"]:
            assert f", {f['name']}," in clr, f["name"]


def test_transferbench_p2p_matrix() -> None:
    from rocmdoctor.parsers.transferbench import parse_transferbench_p2p

    links = parse_transferbench_p2p(_text("transferbench/tb-1.62-mi350x-p2p.txt"))["links"]
    gpu = [x for x in links if x["src"].startswith("GPU") and x["dst"].startswith("GPU")]
    assert len(gpu) == 56
    slowest = min(gpu, key=lambda x: x["gbps"])
    assert (slowest["src"], slowest["dst"], slowest["gbps"]) == ("GPU 07", "GPU 01", 46.66)
    with pytest.raises(ParseError):
        parse_transferbench_p2p(_text("transferbench/tb-1.62-mi350x-a2a.txt"))
