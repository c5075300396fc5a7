"""SimNode: a builder for simulated GPU nodes, rocmdoctor's test bed (cf. fabric.testing).

    node = SimNode("gpu-07", gpus=mi300x_gpus(8))
    node.gpus[3].junction_temp = 104.0
    node.env["ROCR_VISIBLE_DEVICES"] = "0,1"
    node.command("amd-smi", "metric --json", stdout="[]", rc=0)
    root = node.materialize(tmp_path / "gpu-07")
    evidence = sim_transport(root).collect([GatherSpec("file", "/proc/modules")])

`materialize` writes a fake root (`sys/ proc/ dev/ etc/ opt/`) plus `.sim/`:
`bin/` (stub tools), `out/` (their answers), `amdgpu/` (what `modprobe` moves
in and out) and `node.json`. Nothing is written outside the given directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Sequence

from rocmdoctor.simnode.gpu import SimGPU
from rocmdoctor.simnode.entries import Answer, Dev, F, L, Tree, parse_mode
from rocmdoctor.simnode.system import SimUser, group_gid

DEFAULT_USERS = (SimUser("alice", 1001, ("video", "render")), SimUser("slurm", 1002, ()))


def _argv_key(argv_tail: str | Sequence[str]) -> str:
    """Stubs match "$*" (args joined by one space); arguments with blanks would be ambiguous."""
    if isinstance(argv_tail, str):
        return argv_tail
    if any(" " in a or not a for a in argv_tail):
        raise ValueError(f"stub argv {list(argv_tail)!r}: arguments must be non-empty and free of blanks")
    return " ".join(argv_tail)


class SimNode:
    """Desired state of one node; cheap to build, written to disk by `materialize`."""

    def __init__(self, name: str, gpus: list[SimGPU] | None = None, *, description: str = "",
                 kernel: str = "5.15.0-119-generic", rocm_version: str | None = "6.2.0",
                 driver_version: str = "6.8.5", users: Iterable[SimUser] = DEFAULT_USERS,
                 cmdline: str | None = None, uptime_s: float = 86400.0) -> None:
        self.name = name
        self.description = description
        self.gpus: list[SimGPU] = list(gpus or [])
        self.kernel = kernel
        self.rocm_version = rocm_version          # None: ROCm not installed (no /opt/rocm, no GPU tools)
        self.driver_version = driver_version
        self.users: list[SimUser] = [SimUser(u.name, u.uid, tuple(u.groups)) for u in users]
        self.cmdline = cmdline or (f"BOOT_IMAGE=/boot/vmlinuz-{kernel} root=UUID=2f1c9e0a-5b7d-4a8e-9c61-"
                                   "3d0f8b2e7a14 ro iommu=pt amd_iommu=on quiet")
        self.uptime_s = uptime_s
        self.env: dict[str, str] = {}
        self.login_user = "root"
        #: amdgpu loaded now; False after unload_amdgpu() or on a CPU-only node
        self.amdgpu_loaded = bool(self.gpus)
        self.amdgpu_installed = bool(self.gpus)   # module on disk (dkms/modinfo know it)
        self.amdgpu_parameters: dict[str, str] = {"ras_enable": "-1", "bad_page_threshold": "-1",
                                                  "ras_mask": "4294967295", "noretry": "-1"}
        self.kfd_mode = 0o660
        #: /dev/kfd's group: None = render (udev's rule); 0 = root, the kernel's own when no rule matched
        self.kfd_gid: int | None = None
        #: kernel log besides amdgpu's own init lines: (seconds since boot, message)
        self.kernel_log: list[tuple[float, str]] = []
        #: the previous boot's kernel log (journalctl -k -b -1); empty: no persistent journal
        self.previous_boot_log: list[tuple[float, str]] = []
        self.load_error: str | None = None
        self.load_error_log: list[str] = []
        self._files: Tree = {}
        self._removed: set[str] = set()
        self._answers: dict[str, dict[str, Answer]] = {}
        self._unloaded_answers: dict[str, dict[str, Answer]] = {}
        self._stubs: dict[str, str] = {}
        self._no_tools: set[str] = set()

    # -- files -----------------------------------------------------------
    def file(self, path: str, text: str, *, mode: int | str = 0o644, uid: int = 0, gid: int = 0,
             mtime: float | None = None) -> "SimNode":
        """Add or override a file (absolute node path); `mtime` sets when it was last modified."""
        rel = _rel(path)
        self._removed.discard(rel)
        self._files[rel] = F(text, parse_mode(mode), uid, gid, mtime)
        return self

    def symlink(self, path: str, target: str) -> "SimNode":
        if target.startswith("/"):
            raise ValueError(f"{path}: symlink target {target!r} must be relative (it would escape the node root)")
        self._files[_rel(path)] = L(target)
        return self

    def device(self, path: str, *, mode: int | str = "660", group: str | int = "root", owner: int = 0,
               major: int = 0, minor: int = 0) -> "SimNode":
        """A device node (a real char device when run as root, else an empty file) with mode and group."""
        gid = group if isinstance(group, int) else group_gid(group)
        self._files[_rel(path)] = Dev(major, minor, parse_mode(mode), owner, gid)
        return self

    def remove(self, path: str) -> "SimNode":
        """Make a path (and everything below it) absent."""
        rel = _rel(path)
        self._removed.add(rel)
        self._files = {k: v for k, v in self._files.items() if k != rel and not k.startswith(rel + "/")}
        return self

    # -- tools -----------------------------------------------------------
    def command(self, tool: str, argv_tail: str | Sequence[str], stdout: str = "", rc: int = 0,
                stderr: str = "", *, when_unloaded: bool = False) -> "SimNode":
        """A static answer of `tool` to the exact argv tail; `when_unloaded` answers only while amdgpu is out."""
        target = self._unloaded_answers if when_unloaded else self._answers
        target.setdefault(tool, {})[_argv_key(argv_tail)] = Answer(stdout, rc, stderr)
        self._no_tools.discard(tool)
        return self

    def stub(self, tool: str, sh_body: str) -> "SimNode":
        """A stateful stub: a POSIX sh body with $R = node root; replaces static answers."""
        self._stubs[tool] = sh_body
        self._no_tools.discard(tool)
        return self

    def remove_tool(self, tool: str) -> "SimNode":
        """The tool is not installed: `command -v` fails, the probe reports it missing."""
        self._no_tools.add(tool)
        return self

    # -- scenario helpers -------------------------------------------------
    def unload_amdgpu(self, *, load_error: str | None = None, load_error_log: Sequence[str] = ()) -> "SimNode":
        """amdgpu not loaded; `modprobe amdgpu` brings it back unless `load_error` (its stderr) is set,
        in which case modprobe fails and `load_error_log` messages go to the kernel log."""
        self.amdgpu_loaded = False
        self.load_error = load_error
        self.load_error_log = list(load_error_log)
        return self

    def add_kernel_log(self, lines: Iterable[str | tuple[float, str]], *, at: float | None = None) -> "SimNode":
        """Append kernel messages; plain strings get timestamps after the last line (or `at`)."""
        ts = at if at is not None else (self.kernel_log[-1][0] + 0.5 if self.kernel_log else 3600.0)
        for line in lines:
            if isinstance(line, tuple):
                self.kernel_log.append(line)
                ts = line[0]
            else:
                self.kernel_log.append((ts, line))
                ts += 0.000731
        return self

    def add_user(self, name: str, uid: int, groups: Sequence[str] = ()) -> "SimNode":
        self.users.append(SimUser(name, uid, tuple(groups)))
        return self

    # -- output ----------------------------------------------------------
    def materialize(self, directory: str | os.PathLike[str]) -> Path:
        from rocmdoctor.simnode.build import materialize

        return materialize(self, Path(directory))


def _rel(path: str) -> str:
    if not path.startswith("/"):
        raise ValueError(f"{path!r}: node paths are absolute, like /sys/class/drm")
    rel = os.path.normpath(path).lstrip("/")
    if rel.startswith("..") or not rel:
        raise ValueError(f"{path!r}: not a path inside the node")
    return rel


def sim_transport(directory: str | os.PathLike[str], **kw: object):
    """A LocalTransport reading files under the node root and running the node's stub tools.

    PATH is `<root>/.sim/bin:<root>/.sim/sysbin` (see simnode_build.SYSTEM_TOOLS);
    `env=` adds variables, other keywords go to LocalTransport (dry_run, audit, ...).
    """
    from rocmdoctor.transports.local import LocalTransport

    root = str(Path(directory).resolve())
    info = json.loads(Path(root, ".sim", "node.json").read_text())
    env = dict(info.get("env", {}))
    env.update(kw.pop("env", {}) or {})  # type: ignore[arg-type]
    # .sim/sysbin links only the host utilities the probe and stubs need (sh, timeout, stat,
    # awk, ...), so a tool the node lacks is missing even when this machine has it.
    env["PATH"] = f"{root}/.sim/bin:{root}/.sim/sysbin"
    kw.setdefault("host", info["name"])
    return LocalTransport(root=root, env=env, **kw)  # type: ignore[arg-type]


def node_info(directory: str | os.PathLike[str]) -> dict:
    return json.loads(Path(directory, ".sim", "node.json").read_text())


__all__ = ["Answer", "SimNode", "SimUser", "sim_transport", "node_info"]
