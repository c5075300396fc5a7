"""known_hosts verification: refuse unknown keys, optional accept-new, never a changed key.

fabric's Connection installs paramiko's AutoAddPolicy, i.e. trusts any key.
Here each connection's paramiko client is handed only the known keys for its
own known_hosts name (so paramiko's own check raises on a changed key and
prefers the known key type), and a missing key goes to `VerifyingPolicy`,
which refuses it or, under accept-new, records it like OpenSSH's
`StrictHostKeyChecking=accept-new`. HostKeyAlias and `[host]:port` names are
resolved by us (paramiko ignores HostKeyAlias).
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from typing import Any

from rocmdoctor.fileio import write_atomic
from rocmdoctor.transports.ssh_errors import HostKeyError

_write_lock = threading.Lock()


def keyscan_hint(name: str, hostname: str, port: int, file: str = "~/.ssh/known_hosts") -> str:
    """The fix OpenSSH users know, for the exact known_hosts name and file."""
    file = file.replace(os.path.expanduser("~"), "~", 1) if file.startswith(os.path.expanduser("~")) else file
    scan = f"ssh-keyscan -p {port} {hostname}" if port != 22 else f"ssh-keyscan {hostname}"
    plain = hostname if port == 22 else f"[{hostname}]:{port}"
    if name != plain:  # HostKeyAlias: the entry must carry the alias, not the address
        scan += f" | sed 's/^[^ ]*/{name}/'"
    return f"verify the key out of band, then `{scan} >> {file}`, or rerun with --accept-new-host-keys"


class KnownHosts:
    """The keys of a set of known_hosts files, loaded once and shared by all connections.

    `files[0]` is where accept-new writes (OpenSSH writes to the first
    UserKnownHostsFile); the others are read-only.
    """

    def __init__(self, files: tuple[str, ...]) -> None:
        import paramiko

        self.files = files
        self._keys = paramiko.HostKeys()
        self._lock = threading.Lock()
        for f in files:
            if os.path.isfile(f):
                try:
                    self._keys.load(f)
                except (OSError, ValueError):
                    continue  # unreadable or malformed: OpenSSH skips it too

    def lookup(self, name: str) -> dict[str, Any]:
        """{key type: PKey} known for `name` (hashed entries included)."""
        with self._lock:
            found = self._keys.lookup(name)
            return dict(found) if found else {}

    def add(self, name: str, key: Any) -> None:
        """Append one entry to files[0] atomically: lock, rewrite to a temp file, rename.

        The rename means a reader (ssh, another rocmdoctor) never sees a torn
        line; the flock serialises writers across processes, the thread lock
        inside this one.
        """
        if not self.files:
            raise HostKeyError(name, "no UserKnownHostsFile to record the new key in",
                               "set UserKnownHostsFile in your ssh config", reason="host-key-unknown")
        target = Path(self.files[0])
        line = f"{name} {key.get_name()} {key.get_base64()}\n"
        with _write_lock:
            if key.get_name() in self.lookup(name):
                return  # recorded meanwhile by another thread of this run
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with open(f"{target}.lock", "a") as lock_fh:
                fcntl.flock(lock_fh, fcntl.LOCK_EX)
                try:
                    old = target.read_bytes() if target.exists() else b""
                    if line.encode() in old:  # another thread or process recorded it first
                        return
                    if old and not old.endswith(b"\n"):
                        old += b"\n"
                    mode = target.stat().st_mode & 0o777 if target.exists() else 0o600
                    write_atomic(target, old + line.encode(), mode)
                    with self._lock:
                        self._keys.add(name, key.get_name(), key)
                finally:
                    fcntl.flock(lock_fh, fcntl.LOCK_UN)


def make_policy(alias: str, name: str, hostname: str, port: int, known: KnownHosts, accept_new: bool) -> Any:
    """A paramiko MissingHostKeyPolicy bound to one host's known_hosts name."""
    import paramiko

    class VerifyingPolicy(paramiko.MissingHostKeyPolicy):
        def missing_host_key(self, client: Any, server_name: str, key: Any) -> None:
            if known.lookup(name):  # a key of another type is known: treat as changed
                raise changed_key_error(alias, name, key, known.files)
            if not accept_new:
                raise HostKeyError(alias, f"host key for {name} is not in known_hosts "
                                          f"({key.get_name()} {key.fingerprint})",
                                   keyscan_hint(name, hostname, port, known.files[0] if known.files
                                                else "~/.ssh/known_hosts"),
                                   reason="host-key-unknown")
            known.add(name, key)

    return VerifyingPolicy()


def changed_key_error(alias: str, name: str, key: Any, files: tuple[str, ...]) -> HostKeyError:
    where = files[0] if files else "known_hosts"
    return HostKeyError(
        alias,
        f"HOST KEY CHANGED for {name}: the server now offers {key.get_name()} {key.fingerprint}; refusing",
        f"if the change is expected, remove the old entry (`ssh-keygen -R '{name}'`) from {where} "
        "and verify the new key; --accept-new-host-keys never replaces a key",
        reason="host-key-changed",
    )

