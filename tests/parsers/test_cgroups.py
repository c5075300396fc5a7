"""Container of a process from its real /proc/PID/cgroup (tests/fixtures/outputs/cgroup/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError
from rocmdoctor.parsers.cgroups import container_of, parse_container_names, parse_kfd_cgroups

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "outputs" / "cgroup"


@pytest.mark.parametrize("name, runtime, cid, pod", [
    ("centos-docker-systemd.txt", "docker", "9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d", None),
    ("bottlerocket-containerd-systemd.txt", "kubernetes",
     "f45298cd514d1930c4fe3afc4412e59547f7e3148fddd22ca33cefce046eb830", "dd1bf9d1-241d-47f5-8e25-12de83135812"),
    ("crio-1.17-static-pod.txt", "kubernetes",
     "7a1fd6fe8cdfbd44dc78c4cc85dad7031eaab4365801684cad0aabdeaf863f9e", "487a0dc6dccaeefbcfedba7a7ce1ca18"),
    ("containerd-1.4.4-systemd.txt", "kubernetes",
     "d3d8ccf5cca91931c6285c1d7472c413dd5a7700fddc0aa9f89a9ac7008b003e", "2105e389-7471-476e-a50f-6074cef29bbd"),
])
def test_real_cgroup_files_name_their_container(name: str, runtime: str, cid: str, pod: str | None) -> None:
    c = container_of((FIX / name).read_text())
    assert c == {"runtime": runtime, "id": cid, "short": cid[:12], "pod": pod}


def test_host_process_has_no_container() -> None:
    assert container_of((FIX / "host-process.txt").read_text()) is None


def test_probe_blocks_per_kfd_process() -> None:
    text = "== 73310\n" + (FIX / "centos-docker-systemd.txt").read_text() + "== 4242\nMISSING\n== 9\n" \
        + (FIX / "host-process.txt").read_text()
    got = parse_kfd_cgroups(text)
    assert got["73310"]["container"]["short"] == "9ec39b91f3d7"
    assert got["4242"] == {"readable": False, "container": None}
    assert got["9"] == {"readable": True, "container": None}
    assert parse_kfd_cgroups("") == {}
    with pytest.raises(ParseError):
        parse_kfd_cgroups("0::/system.slice/docker.service\n")


def test_docker_ps_id_name_lines() -> None:
    cid = "9ec39b91f3d70e1beff50a308f77067065ea6be0d91a3378375056cd4422cf3d"
    assert parse_container_names(f"{cid} jupyter-bob\n") == {cid: "jupyter-bob"}
    with pytest.raises(ParseError):
        parse_container_names("CONTAINER ID   IMAGE   COMMAND\n")


@pytest.mark.parametrize("name, engine", [
    ("centos-docker-systemd.txt", "docker"), ("bottlerocket-containerd-systemd.txt", "kubepods"),
    ("crio-1.17-static-pod.txt", "kubepods"), ("host-process.txt", None),
])
def test_cgroup_engine_names_the_runtime_a_pid1_cgroup_shows(name: str, engine: str | None) -> None:
    from rocmdoctor.parsers.cgroups import parse_cgroup_engine

    assert parse_cgroup_engine((FIX / name).read_text()) == engine
