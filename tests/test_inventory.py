"""@FILE inventories: plain host lists and YAML with groups and per-host settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.cli.main import run
from rocmdoctor.errors import DefinitionError
from rocmdoctor.fleet.hostlist import HostlistError
from rocmdoctor.fleet.inventory import load_inventory, resolve_targets

FLEET = """\
defaults:
  user: ops
  vars: {expect_gpus: 8}
groups:
  mi300x:
    hosts: ["gpu[001-003]", gpu010]
    jump: bastion.example.com
    env: {ROCR_VISIBLE_DEVICES: "0,1"}
  rack7:
    hosts: ["gpu[003-004]"]
    port: 2222
    vars: {expect_gpus: 4, log: /var/log/job.err}
hosts:
  gpu002:
    hostname: 10.0.0.2
    user: root
    rootfs: /host
    env: {HIP_VISIBLE_DEVICES: "1"}
  login1: {}
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_plain_list_with_comments_and_expressions(tmp_path: Path) -> None:
    p = _write(tmp_path, "hosts.txt", "# rack 1\nnode[001-003]  login1\n\nnode002 # again\ngpu[01-02]-ib\n")
    assert [h.name for h in load_inventory(str(p))] == \
        ["node001", "node002", "node003", "login1", "gpu01-ib", "gpu02-ib"]


def test_yaml_layers_defaults_groups_and_hosts(tmp_path: Path) -> None:
    hosts = {h.name: h for h in load_inventory(str(_write(tmp_path, "fleet.yaml", FLEET)))}
    assert list(hosts) == ["gpu001", "gpu002", "gpu003", "gpu010", "gpu004", "login1"]
    g1 = hosts["gpu001"]
    assert (g1.user, g1.jump, g1.port, g1.groups) == ("ops", "bastion.example.com", None, ("mi300x",))
    assert g1.env == {"ROCR_VISIBLE_DEVICES": "0,1"} and g1.vars == {"expect_gpus": 8}
    g2 = hosts["gpu002"]   # the host entry wins, env merged key by key
    assert (g2.user, g2.hostname, g2.rootfs) == ("root", "10.0.0.2", "/host")
    assert g2.env == {"ROCR_VISIBLE_DEVICES": "0,1", "HIP_VISIBLE_DEVICES": "1"}
    g3 = hosts["gpu003"]   # in both groups: the later group wins where they differ
    assert g3.groups == ("mi300x", "rack7") and g3.port == 2222 and g3.jump == "bastion.example.com"
    assert g3.vars == {"expect_gpus": 4, "log": "/var/log/job.err"}
    assert hosts["login1"].user == "ops" and hosts["login1"].groups == ()


def test_group_selection(tmp_path: Path) -> None:
    p = _write(tmp_path, "fleet.yaml", FLEET)
    assert [h.name for h in load_inventory(f"{p}:rack7")] == ["gpu003", "gpu004"]
    with pytest.raises(DefinitionError) as exc:
        load_inventory(f"{p}:nope")
    assert "no group 'nope'" in exc.value.message and "mi300x, rack7" in exc.value.hint


@pytest.mark.parametrize("text, line, words", [
    ("hosts:\n  a: {prot: 22}\n", 2, "unknown host setting 'prot'"),
    ("hosts:\n  a:\n    port: 70000\n", 3, "port number"),
    ("groups:\n  g:\n    hosts: [\"n[1-\"]\n", 3, "unbalanced"),
    ("groups:\n  g: [a, b]\n", 2, "must be a mapping"),
    ("servers: [a]\n", 1, "unknown inventory key 'servers'"),
    ("hosts:\n  a: {user: [x]}\n", 2, "must be a string"),
    ("hosts: {a: {}\n", 2, "not valid YAML"),  # YAML reports it where the input ends
])
def test_bad_yaml_inventory_names_file_and_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    p = _write(tmp_path, "bad.yaml", text)
    with pytest.raises(DefinitionError) as exc:
        load_inventory(str(p))
    assert exc.value.line == line and words in exc.value.message, exc.value.message
    assert exc.value.message.startswith(f"{p}:{line}:")


def test_bad_plain_list_names_line(tmp_path: Path) -> None:
    p = _write(tmp_path, "hosts.txt", "node1\nnode[2-\n")
    with pytest.raises(DefinitionError) as exc:
        load_inventory(str(p))
    assert exc.value.message.startswith(f"{p}:2: hostlist 'node[2-'")


def test_resolve_targets_mixes_kinds_and_deduplicates(tmp_path: Path) -> None:
    p = _write(tmp_path, "hosts.txt", "node[002-003]\n")
    specs = resolve_targets(["node[001-002]", f"@{p}", "local", "demo:gpu-oom"])
    assert [s.name for s in specs] == ["node001", "node002", "node003", "local", "demo:gpu-oom"]
    with pytest.raises(HostlistError):
        resolve_targets(["n[1-2"])


def test_cli_bad_inventory_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["sweep", f"@{tmp_path}/missing.txt"]) == 2
    err = capsys.readouterr().err
    assert "missing.txt: no such inventory file" in err and "Traceback" not in err
    p = _write(tmp_path, "bad.yaml", "hosts:\n  a: {port: x}\n")
    assert run(["sweep", f"@{p}"]) == 2
    assert f"{p}:2: 'port' must be a port number" in capsys.readouterr().err


def test_exclude_as_clush_x() -> None:
    """`sweep TARGETS -x EXPR`: leave hosts out (hostlist expressions, repeatable), order kept."""
    hosts = resolve_targets(["gpu[001-010]"], ["gpu[003-005]", "gpu010"])
    assert [h.name for h in hosts] == ["gpu001", "gpu002", "gpu006", "gpu007", "gpu008", "gpu009"]
    with pytest.raises(HostlistError, match=r"no hosts to sweep \(all excluded by -x\)"):
        resolve_targets(["gpu1"], ["gpu1"])


def test_cli_sweep_exclude(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["sweep", "demo:healthy-mi300x,demo:dkms-wrong-kernel", "-x", "demo:dkms-wrong-kernel",
                "-r", "kernel-driver-mismatch", "--format", "json"])
    doc = __import__("json").loads(capsys.readouterr().out)
    assert code == 0 and [h["host"] for h in doc["hosts"]] == ["demo:healthy-mi300x"]
