"""OpenSSH client config, parsed once, looked up fast.

paramiko's SSHConfig.lookup walks every block and calls getpass.getuser() per
block: ~23-44 ms per host with 1000 Host blocks, which doubled a 1000-host
sweep. Here literal `Host` patterns are indexed in a dict, wildcard and Match
blocks are kept in a short list, and results are cached per alias. Semantics
follow ssh_config(5): first obtained value wins, IdentityFile accumulates,
only the first SetEnv line applies (OpenSSH >= 8.7), Include expands in place
(relative paths under ~/.ssh, or /etc/ssh for the system file). `ssh -G`
is the reference; tests compare against it.
"""

from __future__ import annotations

import getpass
import glob
import os
import re
import shlex
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path

from rocmdoctor.transports.ssh_errors import SSHConfigError

#: SetEnv name that sets the transport root instead of being exported
ROOTFS_ENV = "ROCMDOCTOR_ROOTFS"
_ACCUMULATE = {"identityfile", "certificatefile", "localforward", "remoteforward", "dynamicforward", "sendenv"}
_MATCH_SUPPORTED = {"all", "host", "originalhost", "user", "localuser"}
_LINE = re.compile(r"\s*([A-Za-z][A-Za-z0-9]*)(?:\s*=\s*|\s+)(.*)$")


@dataclass(frozen=True)
class HostSettings:
    """What the client needs to reach one alias, as `ssh -G ALIAS` would print it."""

    alias: str
    hostname: str
    port: int = 22
    user: str = ""
    identity_files: tuple[str, ...] = ()
    identities_only: bool = False
    proxy_jump: tuple[str, ...] = ()
    user_known_hosts: tuple[str, ...] = ()
    global_known_hosts: tuple[str, ...] = ()
    host_key_alias: str = ""
    connect_timeout: float | None = None
    proxy_command: str = ""         # not supported: refused at connect rather than silently bypassed
    root: str = ""
    env: dict[str, str] = field(default_factory=dict)

    @property
    def known_hosts_name(self) -> str:
        """The name known_hosts stores the key under (OpenSSH's rule, incl. HostKeyAlias)."""
        if self.host_key_alias:
            return self.host_key_alias
        return self.hostname if self.port == 22 else f"[{self.hostname}]:{self.port}"


@dataclass
class _Block:
    kind: str                       # "host" | "match" | "global"
    criteria: list[str]
    path: str
    line: int
    options: list[tuple[str, list[str], int]] = field(default_factory=list)
    positive: list[re.Pattern[str]] = field(default_factory=list)
    negative: list[re.Pattern[str]] = field(default_factory=list)


def _pattern(p: str) -> re.Pattern[str]:
    """An ssh_config pattern as OpenSSH reads it (match.c match_pattern): `*` and `?` are the only
    wildcards; `[...]` is literal text, not fnmatch's character class (issue 43)."""
    return re.compile("(?s:" + "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in p) + r")\Z")


class SSHConfigFile:
    """One or more ssh_config files, parsed once; thread-safe cached lookups."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        if path is not None:
            p = Path(path).expanduser()
            if not p.is_file():
                raise SSHConfigError(str(path), None, "ssh config file not found",
                                     "pass an existing file to --ssh-config")
            sources = [(p, Path("~/.ssh").expanduser())]
        else:  # as `ssh` without -F: the user's file, then the system one
            sources = [(Path(f).expanduser(), Path(d).expanduser())
                       for f, d in (("~/.ssh/config", "~/.ssh"), ("/etc/ssh/ssh_config", "/etc/ssh"))]
        self.path = str(path) if path is not None else "~/.ssh/config"
        self._local_user = _local_user()
        self._blocks: list[_Block] = [_Block("global", [], self.path, 0)]
        for file, base in sources:
            if file.is_file():
                self._parse(file, base, depth=0)
        self._literal: dict[str, list[int]] = {}
        self._general: list[int] = []
        for i, b in enumerate(self._blocks):
            if b.kind == "host" and all(not set("*?!") & set(p) for p in b.criteria):
                for name in b.criteria:
                    self._literal.setdefault(name, []).append(i)
            else:  # wildcard, negated or Match: tested on every lookup, so compile once
                b.positive = [_pattern(p) for p in b.criteria if not p.startswith("!")]
                b.negative = [_pattern(p[1:]) for p in b.criteria if p.startswith("!")]
                self._general.append(i)
        self._cache: dict[str, HostSettings] = {}
        self._lock = threading.Lock()

    # -- parsing -------------------------------------------------------------
    def _parse(self, file: Path, base: Path, depth: int) -> None:
        if depth > 16:
            raise SSHConfigError(str(file), None, "Include nested too deeply")
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise SSHConfigError(str(file), None, f"cannot read: {exc.strerror}") from None
        for n, raw in enumerate(text.splitlines(), 1):
            stripped = raw.strip()
            if not stripped or stripped.startswith("#"):
                continue
            m = _LINE.match(stripped)
            try:  # shlex is ~50x slower than str.split: only for quoted values
                args = [] if not m else shlex.split(m.group(2)) if set("\"'\\") & set(m.group(2)) \
                    else m.group(2).split()
            except ValueError as exc:
                raise SSHConfigError(str(file), n, f"bad quoting: {exc}") from None
            if not m or not args:
                raise SSHConfigError(str(file), n, f"expected 'Keyword value', got {stripped[:60]!r}")
            key = m.group(1).lower()
            if key == "host":
                self._blocks.append(_Block("host", args, str(file), n))
            elif key == "match":
                self._blocks.append(self._match_block(args, str(file), n))
            elif key == "include":
                for pattern in args:
                    full = Path(os.path.expanduser(pattern))
                    full = full if full.is_absolute() else base / full
                    for inc in sorted(glob.glob(str(full))):
                        self._parse(Path(inc), base, depth + 1)
            else:
                self._blocks[-1].options.append((key, args, n))

    @staticmethod
    def _match_block(args: list[str], path: str, line: int) -> _Block:
        words = [a.lower() for a in args[0::2]]
        for w in words:
            if w.lstrip("!") not in _MATCH_SUPPORTED:
                raise SSHConfigError(path, line, f"Match {w} is not supported by rocmdoctor",
                                     "use Host blocks, or Match host/originalhost/user/localuser/all")
        if words != ["all"] and len(args) % 2:
            raise SSHConfigError(path, line, "Match criterion without a value")
        return _Block("match", args, path, line)

    # -- lookup --------------------------------------------------------------
    def lookup(self, alias: str) -> HostSettings:
        cached = self._cache.get(alias)
        if cached is not None:
            return cached
        settings = self._resolve(alias)
        with self._lock:
            return self._cache.setdefault(alias, settings)

    def _resolve(self, alias: str) -> HostSettings:
        opts: dict[str, list[str]] = {}
        candidates = sorted(set(self._literal.get(alias, ())) | set(self._general))
        for i in candidates:
            block = self._blocks[i]
            if not self._applies(block, alias, opts):
                continue
            for key, args, _ in block.options:
                if key in _ACCUMULATE:
                    opts.setdefault(key, []).extend(a for a in args if a not in opts.get(key, []))
                elif key not in opts:
                    opts[key] = args
        return self._settings(alias, opts)

    def _applies(self, block: _Block, alias: str, opts: dict[str, list[str]]) -> bool:
        if block.kind == "global":
            return True
        if block.kind == "host":
            if not block.positive and not block.negative:
                return alias in block.criteria  # a literal block (reached through the index)
            return (any(p.match(alias) for p in block.positive)
                    and not any(p.match(alias) for p in block.negative))
        crit = block.criteria
        if crit[0].lower() == "all":
            return True
        hostname = _expand_hostname(opts.get("hostname", [alias])[0], alias)
        subject = {"host": hostname, "originalhost": alias,
                   "user": opts.get("user", [self._local_user])[0], "localuser": self._local_user}
        for word, value in zip(crit[0::2], crit[1::2]):
            negate = word.startswith("!")
            ok = _match_list(subject[word.lower().lstrip("!")], value)
            if ok == negate:
                return False
        return True

    def _settings(self, alias: str, opts: dict[str, list[str]]) -> HostSettings:
        hostname = _expand_hostname(opts.get("hostname", [alias])[0], alias)
        port = int(opts.get("port", ["22"])[0]) if opts.get("port", ["22"])[0].isdigit() else 22
        user = opts.get("user", [self._local_user])[0]
        tokens = {"h": hostname, "n": alias, "p": str(port), "r": user, "u": self._local_user,
                  "d": os.path.expanduser("~"), "l": _short_hostname(), "%": "%"}
        jump = opts.get("proxyjump", ["none"])[0]
        setenv: dict[str, str] = {}
        for pair in opts.get("setenv", []):
            name, sep, value = pair.partition("=")
            if sep and name not in setenv:
                setenv[name] = value
        root = setenv.pop(ROOTFS_ENV, "")
        timeout = opts.get("connecttimeout", [""])[0]
        return HostSettings(
            alias=alias,
            hostname=hostname,
            port=port,
            user=user,
            identity_files=tuple(_expand_path(p, tokens) for p in opts.get("identityfile", [])),
            identities_only=opts.get("identitiesonly", ["no"])[0].lower() == "yes",
            proxy_jump=() if jump.lower() == "none" else tuple(j for j in jump.split(",") if j),
            user_known_hosts=tuple(_expand_path(p, tokens) for p in opts.get(
                "userknownhostsfile", ["~/.ssh/known_hosts", "~/.ssh/known_hosts2"]) if p != "none"),
            global_known_hosts=tuple(_expand_path(p, tokens) for p in opts.get(
                "globalknownhostsfile", ["/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"]) if p != "none"),
            host_key_alias=opts.get("hostkeyalias", [""])[0],
            connect_timeout=float(timeout) if timeout.isdigit() else None,
            proxy_command="" if " ".join(opts.get("proxycommand", ["none"])) == "none"
            else " ".join(opts["proxycommand"]),
            root=root,
            env=setenv,
        )


def parse_jump(spec: str) -> tuple[str | None, str, int | None]:
    """`[user@]host[:port]` (or `[v6addr]:port`, or an ssh:// URI) -> (user, host, port)."""
    spec = spec.removeprefix("ssh://")
    user, _, rest = spec.rpartition("@")
    port: int | None = None
    if rest.startswith("["):
        host, _, tail = rest[1:].partition("]")
        if tail.startswith(":") and tail[1:].isdigit():
            port = int(tail[1:])
    elif rest.count(":") == 1:
        host, _, p = rest.partition(":")
        port = int(p) if p.isdigit() else None
    else:
        host = rest
    return (user or None), host, port


def _match_list(subject: str, patterns: str) -> bool:
    """ssh_config pattern-list: comma separated, `!` negates and vetoes."""
    hit = False
    for p in patterns.split(","):
        if p.startswith("!"):
            if _pattern(p[1:]).match(subject):
                return False
        elif _pattern(p).match(subject):
            hit = True
    return hit


def _expand_hostname(value: str, alias: str) -> str:
    return re.sub(r"%[h%]", lambda m: alias if m.group() == "%h" else "%", value)


def _expand_path(value: str, tokens: dict[str, str]) -> str:
    value = re.sub(r"%(.)", lambda m: tokens.get(m.group(1), m.group()), value)
    value = re.sub(r"\$\{(\w+)\}", lambda m: os.environ.get(m.group(1), ""), value)
    return os.path.expanduser(value)


def _local_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())


def _short_hostname() -> str:
    return socket.gethostname().split(".")[0]
