"""Tree entries of a simulated node and the fast writer that puts them on disk.

A node's tree is a flat dict `{relative path: entry}`; building a dict is
cheap and makes overrides ("this file differs", "that one is gone") plain
dict operations. Writing uses raw os calls, no pathlib, because a sweep
benchmark materializes hundreds of nodes of ~600 entries each.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class F:
    """A regular file. sysfs attributes are 0444 (read-only) or 0644 (writable)."""

    text: str
    mode: int = 0o444
    uid: int = 0
    gid: int = 0
    #: modified time (seconds since the epoch); None: when it was written
    mtime: float | None = None


@dataclass(frozen=True, slots=True)
class L:
    """A symlink; targets are always relative so the tree never escapes its root."""

    target: str


@dataclass(frozen=True, slots=True)
class D:
    """An (otherwise empty) directory, e.g. /etc/modprobe.d."""

    mode: int = 0o755


@dataclass(frozen=True, slots=True)
class Dev:
    """A character device node; written as a real one when the writer may (root), else a regular file."""

    major: int
    minor: int
    mode: int = 0o660
    uid: int = 0
    gid: int = 0


Entry = F | L | D | Dev
Tree = dict[str, Entry]


def parse_mode(mode: int | str) -> int:
    """Accept 0o660, 660 written as a string ("660", "0660") the way people say modes."""
    if isinstance(mode, str):
        return int(mode, 8)
    return mode


def can_mknod() -> bool:
    """Real device nodes need CAP_MKNOD; tests run as root in the dev container."""
    return os.geteuid() == 0


def write_tree(base: str, tree: Tree, *, devices_as_nodes: bool) -> None:
    """Write `tree` under the absolute directory `base` (which must exist).

    Parents are created on demand and remembered, symlinks are written as
    given (relative), ownership is only changed when it differs from root.
    """
    made: set[str] = {base}
    is_root = os.geteuid() == 0
    umask = os.umask(0)
    os.umask(umask)
    for rel in sorted(tree):
        entry = tree[rel]
        path = base + "/" + rel
        parent = path.rpartition("/")[0]
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        if isinstance(entry, F):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, entry.mode)
            try:
                os.write(fd, entry.text.encode())
            finally:
                os.close(fd)
            if entry.mode & umask:      # the umask took bits away: set them (one syscall, rare)
                os.chmod(path, entry.mode)
            if (entry.uid or entry.gid) and is_root:
                os.chown(path, entry.uid, entry.gid)
            if entry.mtime is not None:
                os.utime(path, (entry.mtime, entry.mtime))
        elif isinstance(entry, L):
            os.symlink(entry.target, path)
        elif isinstance(entry, D):
            if path not in made:
                os.makedirs(path, exist_ok=True)
                made.add(path)
            os.chmod(path, entry.mode)
        else:
            if devices_as_nodes:
                os.mknod(path, entry.mode | stat.S_IFCHR, os.makedev(entry.major, entry.minor))
            else:
                open(path, "wb").close()
            os.chmod(path, entry.mode)
            if (entry.uid or entry.gid) and is_root:
                os.chown(path, entry.uid, entry.gid)


@dataclass(frozen=True)
class Answer:
    """What a stub tool prints for one argv: stdout, exit status, stderr."""

    stdout: str
    rc: int = 0
    stderr: str = ""
