from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

import json

from rocmdoctor.parsers.containers import parse_container_inspect
from rocmdoctor.simnode.formats.system import render_container_inspect

# HostConfig layout as in a real podman inspect excerpt (code index id 401374400, see
# fixtures/outputs/docker/SOURCES.md): empty lists, not null, for unset options.
PODMAN_EXCERPT = {
    "Id": "9" * 64, "Name": "web", "ImageName": "docker.io/library/nginx:latest",
    "State": {"Status": "running", "Running": True},
    "Config": {"Env": ["PATH=/usr/bin"], "Image": "docker.io/library/nginx:latest"},
    "HostConfig": {"CapAdd": [], "CapDrop": [], "GroupAdd": [], "IpcMode": "shareable", "Privileged": False,
                   "SecurityOpt": [], "ShmSize": 65536000},
}


def test_docker_rocm_container():
    text = render_container_inspect("trainer", devices=["/dev/kfd", "/dev/dri/renderD128"],
                                    group_add=["video", "render"], security_opt=["seccomp=unconfined"],
                                    cap_add=["SYS_PTRACE"], env=["ROCR_VISIBLE_DEVICES=0,1"])
    c = parse_container_inspect(text)
    assert c["name"] == "trainer" and c["running"] is True and c["privileged"] is False
    assert c["devices"] == ["/dev/kfd", "/dev/dri/renderD128"]
    assert c["group_add"] == ["video", "render"] and c["security_opt"] == ["seccomp=unconfined"]
    assert c["cap_add"] == ["SYS_PTRACE"] and c["gpu_env"] == {"ROCR_VISIBLE_DEVICES": "0,1"}
    assert get_parser("container_inspect") is parse_container_inspect


def test_podman_without_devices_and_stopped():
    c = parse_container_inspect(render_container_inspect("job", engine="podman", devices=[], group_add=[],
                                                         running=False))
    assert c["name"] == "job" and c["running"] is False and c["status"] == "exited"
    assert c["devices"] == [] and c["group_add"] == [] and c["security_opt"] == []
    p = parse_container_inspect(json.dumps([PODMAN_EXCERPT]))
    assert p["image"] == "docker.io/library/nginx:latest" and p["devices"] == [] and p["cap_add"] == []


def test_errors():
    with pytest.raises(ParseError, match="got 0"):
        parse_container_inspect("[]\n")
    with pytest.raises(ParseError, match="not JSON"):
        parse_container_inspect("Error: No such object: trainer\n")
    with pytest.raises(ParseError, match="HostConfig"):
        parse_container_inspect('[{"Id": "x"}]')
