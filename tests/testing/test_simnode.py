"""The simulated-node test bed: trees, stubs, state-changing remediation stubs, isolation."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from rocmdoctor.evidence.probe import GatherSpec
from rocmdoctor.simnode.formats import amd_smi, kernel, rocminfo, system
from rocmdoctor.simnode.nodes import healthy_mi300x, healthy_no_gpu
from rocmdoctor.simnode.scenarios import SCENARIOS
from rocmdoctor.simnode.gpu import mi300x_gpus
from rocmdoctor.simnode.node import SimNode, sim_transport

HWMON = "/sys/class/drm/card*/device/hwmon/hwmon*"


def _cmd(*argv: str) -> GatherSpec:
    return GatherSpec("command", tuple(argv))


def _tree(root: Path) -> dict[str, object]:
    """Everything outside .sim/: path -> bytes, link target or kind, for before/after comparisons."""
    out: dict[str, object] = {}
    for dirpath, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir.split(os.sep)[0] == ".sim":
            continue
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            if rel.startswith(".sim"):
                continue
            st = os.lstat(p)
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                out[rel] = ("file", Path(p).read_bytes(), st.st_mode, st.st_gid)
            else:
                out[rel] = ("other", st.st_mode, st.st_gid)
    return out


def test_healthy_node_evidence_through_the_probe(sim_node):
    root = sim_node(healthy_mi300x())
    ev = sim_transport(root).collect([
        GatherSpec("file", "/proc/modules"),
        GatherSpec("glob", "/sys/bus/pci/devices/*/vendor"),
        GatherSpec("glob", "/sys/bus/pci/devices/*/class"),
        GatherSpec("glob", f"{HWMON}/temp*_input"),
        GatherSpec("glob", f"{HWMON}/temp*_crit"),
        GatherSpec("glob", "/sys/class/kfd/kfd/topology/nodes/*/properties"),
        GatherSpec("stat", "/dev/kfd"),
        GatherSpec("stat", "/dev/dri/renderD*"),
        GatherSpec("file", "/opt/rocm/.info/version"),
        GatherSpec("file", "/sys/module/amdgpu/initstate"),
        GatherSpec("env", "PATH"),
    ])
    assert all(e.status == "ok" for e in ev.values()), {k: e.reason for k, e in ev.items() if e.status != "ok"}
    assert ev["file:/proc/modules"].value.startswith("amdgpu 19746816 0 - Live 0x0000000000000000 (OE)\n")
    vendors = ev["glob:/sys/bus/pci/devices/*/vendor"].value
    assert sum(v == "0x1002\n" for v in vendors.values()) == 8
    assert sum(v == "0x1022\n" for v in vendors.values()) == 3       # the AMD-CPU "grep AMD" trap
    classes = ev["glob:/sys/bus/pci/devices/*/class"].value
    assert classes["/sys/bus/pci/devices/0000:05:00.0/class"] == "0x120000\n"
    temps = ev[f"glob:{HWMON}/temp*_input"].value
    assert len(temps) == 16 and not any(p.endswith("temp1_input") for p in temps)   # MI300: no edge sensor
    assert temps["/sys/class/drm/card0/device/hwmon/hwmon2/temp2_input"] == "42000\n"
    assert ev[f"glob:{HWMON}/temp*_crit"].value == {}                                # MI300: no crit files
    props = ev["glob:/sys/class/kfd/kfd/topology/nodes/*/properties"].value
    gpu_nodes = [t for t in props.values() if "\ngfx_target_version 90402\n" in t]
    assert len(props) == 10 and len(gpu_nodes) == 8
    assert all("cpu_cores_count 0\n" in t for t in gpu_nodes)
    kfd = ev["stat:/dev/kfd"].value["/dev/kfd"]
    assert {k: kfd[k] for k in ("mode", "uid", "gid")} == {"mode": "660", "uid": 0, "gid": 109}
    if kfd["type"] == "character special file":       # a real device node when the tests run as root
        assert (kfd["major"], kfd["minor"]) == (511, 0)
    assert len(ev["stat:/dev/dri/renderD*"].value) == 8
    assert ev["file:/opt/rocm/.info/version"].value == "6.2.0-66\n"
    assert ev["file:/sys/module/amdgpu/initstate"].value == "live\n"
    assert ev["env:PATH"].value.startswith(f"{root}/.sim/bin:")


def test_stubs_print_the_renderers_output_byte_for_byte(sim_node):
    node = healthy_mi300x()
    gpus = node.gpus
    root = sim_node(node)
    ev = sim_transport(root).collect([
        _cmd("amd-smi", "list", "--json"), _cmd("amd-smi", "static", "--json"), _cmd("amd-smi", "metric", "--json"),
        _cmd("amd-smi", "process", "--json"), _cmd("rocminfo"), _cmd("id", "alice"),
        _cmd("lspci", "-n", "-D"), _cmd("uname", "-r"), _cmd("dkms", "status"),
    ])
    out = {k.split(":", 1)[1]: e.value for k, e in ev.items()}
    assert out["amd-smi list --json"]["stdout"] == amd_smi.render_list_json(gpus)
    assert out["amd-smi static --json"]["stdout"] == amd_smi.render_static_json(gpus, driver_version="6.8.5")
    assert out["amd-smi metric --json"]["stdout"] == amd_smi.render_metric_json(gpus)
    assert out["amd-smi process --json"]["stdout"] == amd_smi.render_process_json(gpus)
    assert out["rocminfo"]["stdout"] == rocminfo.render_rocminfo(gpus)
    assert out["id alice"]["stdout"] == system.render_id(1001, "alice", 1001, "alice",
                                                         [(1001, "alice"), (44, "video"), (109, "render")])
    lspci = out["lspci -n -D"]["stdout"]
    assert "0000:05:00.0 1200: 1002:74a1\n" in lspci and "0000:00:00.0 0600: 1022:14a4\n" in lspci
    assert out["uname -r"] == {**out["uname -r"], "rc": 0, "stdout": "5.15.0-119-generic\n"}
    assert out["dkms status"]["stdout"].startswith("amdgpu/6.8.5-2009582.22.04, 5.15.0-119-generic, x86_64: installed")
    assert all(v["rc"] == 0 and v["stderr"] == "" for v in out.values())


def test_unknown_argv_is_a_usage_error_and_is_logged(sim_node):
    root = sim_node(healthy_mi300x())
    ev = sim_transport(root).collect([_cmd("amd-smi", "metrics"), _cmd("dmesg", "--bogus")])
    bad = ev["command:amd-smi metrics"].value
    assert bad["rc"] == 2 and bad["stdout"] == ""
    assert bad["stderr"] == "usage: amd-smi [-h] ...\namd-smi: error: unrecognized arguments: metrics\n"
    assert ev["command:dmesg --bogus"].value["rc"] == 2
    assert (root / ".sim/unknown-argv.log").read_text() in ("amd-smi metrics\ndmesg --bogus\n",
                                                              "dmesg --bogus\namd-smi metrics\n")


def test_builder_overrides_files_commands_env_and_tools(sim_node):
    node = healthy_mi300x(gpus=2)
    node.gpus[1].junction_temp = 97.5
    node.env["ROCR_VISIBLE_DEVICES"] = "0"
    node.file("/etc/modprobe.d/blacklist-amdgpu.conf", "blacklist amdgpu\n")
    node.remove("/sys/devices/pci0000:00/0000:05:00.0/hwmon")
    node.device("/dev/dri/renderD128", mode="600", group="root", major=226, minor=128)
    node.command("amd-smi", ["metric", "--json"], stdout="[]\n", rc=0)
    node.command("rocm-smi", "--showpids", stdout="", rc=1, stderr="boom\n")
    node.remove_tool("rocminfo")
    root = sim_node(node)
    ev = sim_transport(root).collect([
        GatherSpec("glob", f"{HWMON}/temp2_input"), GatherSpec("env", "ROCR_VISIBLE_DEVICES"),
        GatherSpec("file", "/etc/modprobe.d/blacklist-amdgpu.conf"), GatherSpec("stat", "/dev/dri/renderD128"),
        _cmd("amd-smi", "metric", "--json"), _cmd("rocm-smi", "--showpids"), _cmd("rocminfo"),
    ])
    assert ev[f"glob:{HWMON}/temp2_input"].value == {"/sys/class/drm/card1/device/hwmon/hwmon3/temp2_input": "97500\n"}
    assert ev["env:ROCR_VISIBLE_DEVICES"].value == "0"
    assert ev["file:/etc/modprobe.d/blacklist-amdgpu.conf"].value == "blacklist amdgpu\n"
    assert ev["stat:/dev/dri/renderD128"].value["/dev/dri/renderD128"]["mode"] == "600"
    assert ev["command:amd-smi metric --json"].value["stdout"] == "[]\n"
    assert ev["command:rocm-smi --showpids"].value == {**ev["command:rocm-smi --showpids"].value,
                                                       "rc": 1, "stderr": "boom\n"}
    assert ev["command:rocminfo"].status == "missing"
    info = json.loads((root / ".sim/node.json").read_text())
    assert info["env"] == {"ROCR_VISIBLE_DEVICES": "0"} and len(info["gpus"]) == 2
    with pytest.raises(ValueError):
        node.symlink("/sys/x", "/etc/passwd")


def test_modprobe_round_trip_restores_the_tree(sim_node):
    root = sim_node(healthy_mi300x())
    before = _tree(root)
    t = sim_transport(root)
    assert t.run("modprobe -r amdgpu", timeout=10).exit_status == 0
    gone = t.collect([GatherSpec("file", "/proc/modules"), GatherSpec("stat", "/dev/kfd"),
                      GatherSpec("glob", "/sys/class/kfd/kfd/topology/nodes/*/properties"),
                      GatherSpec("file", "/sys/bus/pci/devices/0000:05:00.0/uevent"),
                      GatherSpec("file", "/sys/bus/pci/devices/0000:05:00.0/vendor"), _cmd("rocminfo"),
                      _cmd("amd-smi", "list", "--json")])
    assert "amdgpu" not in gone["file:/proc/modules"].value
    assert gone["stat:/dev/kfd"].value == {}
    assert gone["glob:/sys/class/kfd/kfd/topology/nodes/*/properties"].value == {}
    assert not gone["file:/sys/bus/pci/devices/0000:05:00.0/uevent"].value.startswith("DRIVER=")
    assert gone["file:/sys/bus/pci/devices/0000:05:00.0/vendor"].value == "0x1002\n"   # PCI core stays
    assert gone["command:rocminfo"].value["stdout"] == "ROCk module is NOT loaded, possibly no GPU devices\n"
    assert gone["command:amd-smi list --json"].value["rc"] == 255
    second = t.run("modprobe -r amdgpu", timeout=10)
    assert (second.exit_status, second.stderr) == (1, "modprobe: FATAL: Module amdgpu is not in kernel.\n")
    assert t.run("modprobe amdgpu", timeout=10).exit_status == 0
    after = _tree(root)
    assert after == before
    dmesg = t.collect([_cmd("dmesg")])["command:dmesg"].value["stdout"]
    assert dmesg.endswith("[drm] Initialized amdgpu 3.58.0 20150101 for 0000:e5:00.0 on minor 7\n")
    assert dmesg.count("[drm] amdgpu kernel modesetting enabled.") == 2


def test_unloaded_node_loads_and_in_use_module_refuses_removal(sim_node):
    node = healthy_mi300x(gpus=2).unload_amdgpu()
    root = sim_node(node)
    t = sim_transport(root)
    assert t.collect([GatherSpec("stat", "/sys/module/amdgpu")])["stat:/sys/module/amdgpu"].value == {}
    assert t.run("modprobe amdgpu", timeout=10).exit_status == 0
    ev = t.collect([GatherSpec("file", "/sys/module/amdgpu/initstate"), _cmd("dmesg"), _cmd("journalctl", "-k")])
    assert ev["file:/sys/module/amdgpu/initstate"].value == "live\n"
    assert "amdgpu: Topology: Add GPU node [0x1002:0x74a1]" in ev["command:dmesg"].value["stdout"]
    assert " mi300x-01 kernel: [drm] amdgpu kernel modesetting enabled.\n" in ev["command:journalctl -k"].value["stdout"]
    busy = healthy_mi300x(gpus=1)
    from rocmdoctor.simnode.gpu import SimProcess

    busy.gpus[0].processes.append(SimProcess(pid=4711, name="python3", vram_bytes=1 << 30))
    t2 = sim_transport(sim_node(busy))
    r = t2.run("modprobe -r amdgpu", timeout=10)
    assert (r.exit_status, r.stderr) == (1, "modprobe: FATAL: Module amdgpu is in use.\n")


def test_failing_modprobe_logs_and_keeps_the_node_unloaded(sim_node):
    node = healthy_mi300x(gpus=1).unload_amdgpu(
        load_error="modprobe: ERROR: could not insert 'amdgpu': No such device\n",
        load_error_log=["amdgpu 0000:05:00.0: amdgpu: Fatal error during GPU init"])
    t = sim_transport(sim_node(node))
    r = t.run("modprobe amdgpu", timeout=10)
    assert (r.exit_status, r.stderr) == (1, "modprobe: ERROR: could not insert 'amdgpu': No such device\n")
    ev = t.collect([GatherSpec("stat", "/dev/kfd"), _cmd("dmesg")])
    assert ev["stat:/dev/kfd"].value == {}
    assert ev["command:dmesg"].value["stdout"].endswith(
        "[86400.000000] amdgpu 0000:05:00.0: amdgpu: Fatal error during GPU init\n")


def test_group_remediation_is_seen_by_id(sim_node):
    t = sim_transport(sim_node(healthy_mi300x(gpus=1)))
    assert t.run("id -Gn slurm", timeout=10).stdout == "slurm\n"
    assert t.run("usermod -aG render,video slurm", timeout=10).exit_status == 0
    assert t.run("usermod -aG render slurm", timeout=10).exit_status == 0          # idempotent
    r = t.run("gpasswd -a slurm docker", timeout=10)
    assert (r.exit_status, r.stdout) == (0, "Adding user slurm to group docker\n")
    ev = t.collect([_cmd("id", "slurm"), _cmd("id", "nobody-here"), GatherSpec("file", "/etc/group")])
    assert ev["command:id slurm"].value["stdout"] == \
        "uid=1002(slurm) gid=1002(slurm) groups=1002(slurm),44(video),109(render),998(docker)\n"
    assert ev["command:id nobody-here"].value["rc"] == 1
    assert "render:x:109:alice,slurm\n" in ev["file:/etc/group"].value
    bad = t.run("usermod -aG rendr slurm", timeout=10)
    assert (bad.exit_status, bad.stderr) == (6, "usermod: group 'rendr' does not exist\n")


def test_cpu_only_node(sim_node):
    root = sim_node(healthy_no_gpu())
    ev = sim_transport(root).collect([
        GatherSpec("glob", "/sys/bus/pci/devices/*/vendor"), GatherSpec("stat", "/dev/kfd"),
        GatherSpec("file", "/proc/modules"), GatherSpec("stat", "/opt/rocm"), _cmd("amd-smi", "list", "--json"),
        _cmd("modinfo", "amdgpu"), _cmd("lspci", "-n", "-D"),
    ])
    assert "0x1002\n" not in ev["glob:/sys/bus/pci/devices/*/vendor"].value.values()
    assert ev["stat:/dev/kfd"].value == {} and ev["stat:/opt/rocm"].value == {}
    assert "amdgpu" not in ev["file:/proc/modules"].value
    assert ev["command:amd-smi list --json"].status == "missing"
    assert ev["command:modinfo amdgpu"].value["stderr"] == "modinfo: ERROR: Module amdgpu not found.\n"
    assert " 1002:" not in ev["command:lspci -n -D"].value["stdout"]


def test_stubs_work_from_any_cwd_and_host_tools_stay_hidden(sim_node, tmp_path):
    root = sim_node(healthy_mi300x(gpus=1))
    r = subprocess.run([str(root / ".sim/bin/uname"), "-r"], cwd=tmp_path, capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, "5.15.0-119-generic\n")
    # a tool the node does not have must be missing even if the host has it (python3 is on the host)
    ev = sim_transport(root).collect([_cmd("python3", "--version")])
    assert ev["command:python3 --version"].status == "missing"


def test_nothing_is_written_outside_the_node_dir(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "marker").write_text("x")
    root = healthy_mi300x(gpus=2).materialize(tmp_path / "node")
    t = sim_transport(root)
    snapshot = sorted(p.name for p in tmp_path.iterdir())
    t.run("modprobe -r amdgpu && modprobe amdgpu && usermod -aG render slurm", timeout=20)
    t.collect([_cmd("dmesg"), _cmd("amd-smi", "list", "--json"), GatherSpec("glob", "/sys/class/drm/*/device/vendor")])
    assert sorted(p.name for p in tmp_path.iterdir()) == snapshot == ["node", "outside"]
    assert list(outside.iterdir()) == [outside / "marker"]
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            if os.path.islink(p) and not dirpath.endswith(".sim/sysbin"):
                target = os.path.realpath(p)
                assert target.startswith(str(root)), f"{p} -> {target} escapes the node"


def test_materialize_refuses_a_non_empty_dir_and_bad_paths(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "f").write_text("")
    with pytest.raises(FileExistsError):
        SimNode("n", gpus=mi300x_gpus(1)).materialize(tmp_path / "x")
    with pytest.raises(ValueError):
        SimNode("n").file("relative/path", "x")
    with pytest.raises(ValueError):
        SimNode("n").command("amd-smi", ["--name", "has space"])


def test_scenario_registry_has_the_healthy_nodes():
    for name in ("healthy-mi300x", "healthy-no-gpu"):
        s = SCENARIOS[name]
        assert s.expect["state"] == "pass" and isinstance(s.build(), SimNode)


def test_kernel_log_lines_are_rendered_in_time_order(sim_node):
    node = healthy_mi300x(gpus=1).add_kernel_log(["amdgpu 0000:05:00.0: amdgpu: GPU reset begin!"], at=5000.0)
    ev = sim_transport(sim_node(node)).collect([_cmd("dmesg")])
    out = ev["command:dmesg"].value["stdout"]
    assert out.endswith(kernel.render_dmesg([(5000.0, "amdgpu 0000:05:00.0: amdgpu: GPU reset begin!")]))
    stamps = [float(line[1:13]) for line in out.splitlines()]
    assert stamps == sorted(stamps)
