"""`rocmdoctor sweep local`: the per-node scheduled mode (cron, systemd timer, Slurm
HealthCheckProgram, node-problem-detector) on simulated nodes, end to end through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rocmdoctor.cli.main import run
from rocmdoctor.testing.fake_slurm import FakeSlurm
from rocmdoctor.testing.promtext import parse
from rocmdoctor.simnode.node import sim_transport
from rocmdoctor.testing.sshd import closed_port
from rocmdoctor.testing.sweep_fleet import CATALOG, sim_nodes


@pytest.fixture(scope="module")
def inventories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("local")
    nodes = sim_nodes()
    out = {}
    for kind in ("healthy", "no-driver", "tool-warn"):
        root = nodes[kind].materialize(base / kind)
        env = sim_transport(root).env
        inv = base / f"{kind}.yaml"
        inv.write_text(json.dumps({"hosts": {"local": {"rootfs": str(root), "env": env}}}))  # JSON is YAML
        out[kind] = inv
    refused = base / "refused.yaml"
    refused.write_text(f"hosts:\n  deadnode: {{hostname: 127.0.0.1, port: {closed_port()}}}\n")
    out["refused"] = refused
    return out


def _sweep(inv: Path, tmp_path: Path, *args: str) -> int:
    (tmp_path / "ssh_config").touch()
    return run(["sweep", f"@{inv}", "--path", str(CATALOG), "-r", "sweep_test",
                "--audit-log", str(tmp_path / "audit.log"), "--ssh-config", str(tmp_path / "ssh_config"), *args])


def test_prometheus_textfile_for_node_exporter(inventories, tmp_path: Path, capsys) -> None:
    prom = tmp_path / "rocmdoctor.prom"
    assert _sweep(inventories["healthy"], tmp_path, "--format", "prometheus", "-o", str(prom)) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == ""          # silent under cron: no TTY, no progress, output in the file
    fams = parse(prom.read_text())
    assert fams["rocmdoctor_host_state"]["samples"] == [({"host": "local"}, 0.0)]
    assert len(fams["rocmdoctor_check_state"]["samples"]) == 3


@pytest.mark.parametrize("kind, code, npd_code, npd_text", [
    ("healthy", 0, 0, "rocmdoctor: healthy (sweep_test)"),
    ("tool-warn", 1, 0, "OK with warning: sweep_test/tool: sweeptool exited 3"),
    ("no-driver", 2, 1, "NonOK: sweep_test/module: amdgpu is not loaded: /proc/modules has 9 modules, ..."),
    ("refused", 3, 2, "Unknown: refused: deadnode: connection refused (127.0.0.1:"),
])
def test_exit_status_and_npd_protocol(inventories, tmp_path: Path, capsys, kind, code, npd_code, npd_text) -> None:
    assert _sweep(inventories[kind], tmp_path, "--format", "json") == code
    assert json.loads(capsys.readouterr().out)["exit_status"] == code
    assert _sweep(inventories[kind], tmp_path, "--npd") == npd_code
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and len(out.rstrip("\n").encode()) <= 80   # NPD's max_output_length
    assert out.startswith(npd_text)


def test_slurm_health_check_drains_then_resumes(inventories, tmp_path: Path, capsys, monkeypatch) -> None:
    slurm = FakeSlurm(tmp_path / "slurm").node("gpu42")
    monkeypatch.setenv("PATH", f"{slurm.bin}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("SLURMD_NODENAME", "gpu42")
    assert _sweep(inventories["no-driver"], tmp_path, "--drain-on", "critical", "-o", str(tmp_path / "t")) == 2
    state, reason = slurm.state("gpu42")
    assert state == "drained"
    assert reason == "rocmdoctor: [node_problem] fail: sweep_test/module: amdgpu is not loaded: " \
                     "/proc/modules has 9 modules, none is amdgpu"
    assert "slurm drain: drained gpu42" in capsys.readouterr().err
    assert _sweep(inventories["tool-warn"], tmp_path, "--resume", "-o", str(tmp_path / "t")) == 1
    assert slurm.state("gpu42")[0] == "drained"      # a warning is not healthy: stays drained
    assert _sweep(inventories["healthy"], tmp_path, "-o", str(tmp_path / "t")) == 0
    assert slurm.state("gpu42")[0] == "drained"      # resumes only when asked
    assert _sweep(inventories["healthy"], tmp_path, "--resume", "-o", str(tmp_path / "t")) == 0
    assert slurm.state("gpu42") == ("idle", None)
    audit = (tmp_path / "audit.log").read_text()
    assert "State=DRAIN" in audit and "State=RESUME" in audit


@pytest.mark.parametrize("args, words", [
    (["--format", "xml"], "unknown --format 'xml'"),
    (["--drain-on", "sometimes"], "--drain-on 'sometimes'"),
    (["-r", "no-such-runbook"], "unknown runbook 'no-such-runbook'"),
])
def test_bad_options_are_one_line(inventories, tmp_path: Path, capsys, args, words) -> None:
    assert _sweep(inventories["healthy"], tmp_path, *args) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_missing_ssh_config_is_one_error_not_n_unknowns(inventories, tmp_path: Path, capsys) -> None:
    assert run(["sweep", "node[1-50]", "--ssh-config", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "nope: no such ssh config file" in err


def test_output_dir_missing_is_a_clear_error(inventories, tmp_path: Path, capsys) -> None:
    assert _sweep(inventories["healthy"], tmp_path, "-o", str(tmp_path / "no" / "x.prom")) == 2
    assert "does not exist" in capsys.readouterr().err


def test_registering_the_command_stays_light() -> None:
    code = ("import sys, rocmdoctor.cli.sweep; heavy = [m for m in ('rich', 'paramiko', 'fabric', "
            "'rocmdoctor.fleet.sweep', 'rocmdoctor.catalog.loader') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30).stdout
    assert out.strip() == "[]"
