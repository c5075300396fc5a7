"""Setting up verified SSH connections: the part shared by every host of a sweep.

`SSHContext` holds what is parsed once (ssh_config, known_hosts files), the
shared ProxyJump gateways, and turns every way a connection can fail into an
`SSHError` with a reason code. Measured pitfalls it exists for:
- paramiko never sets TCP_NODELAY (~48 ms per exec on loopback): we create
  the socket ourselves and pass `sock=`;
- sshd does not set TCP_NODELAY for exec sessions, so its channel-open reply
  waits for our delayed ACK: the first exec of every connection cost ~45 ms
  more than the next. Re-arming TCP_QUICKACK after each packet read (Linux)
  took it from ~52 ms to ~10 ms;
- fabric's Connection trusts any host key (AutoAdd): replaced by host_keys.py;
- fabric lost hosts when Connections were built from many threads at once:
  construction is serialised (it is cheap; the network part is not);
- sshd's MaxStartups drops a share of simultaneous connections before the
  banner: such drops are retried with bounded exponential backoff + jitter.
fabric and paramiko are imported here only, lazily (CLI start-up stays light).
"""

from __future__ import annotations

import dataclasses
import errno
import logging
import os
import random
import socket
import threading
import time
from pathlib import Path
from typing import Any

from rocmdoctor.transports.host_keys import KnownHosts, changed_key_error, make_policy
from rocmdoctor.transports.ssh_config import HostSettings, SSHConfigFile, parse_jump
from rocmdoctor.transports.ssh_errors import AuthFailed, HostUnreachable, SSHError

_construct_lock = threading.Lock()
MAX_JUMP_DEPTH = 8


class SSHContext:
    """Config, known hosts and gateways shared by all SSH transports of one run."""

    def __init__(
        self,
        ssh_config: str | Path | SSHConfigFile | None = None,
        *,
        accept_new_host_keys: bool = False,
        connect_timeout: float = 10.0,
        connect_retries: int = 4,
        retry_backoff: float = 0.2,
    ) -> None:
        self.config = ssh_config if isinstance(ssh_config, SSHConfigFile) else SSHConfigFile(ssh_config)
        self.accept_new_host_keys = accept_new_host_keys
        self.connect_timeout = connect_timeout
        self.connect_retries = connect_retries
        self.retry_backoff = retry_backoff
        self._lock = threading.Lock()
        self._known: dict[tuple[str, ...], KnownHosts] = {}
        self._gateways: dict[tuple[str, ...], Any] = {}
        self._gateway_locks: dict[tuple[str, ...], threading.Lock] = {}
        self._fabric_config: Any = None
        self._pkeys: dict[str, Any] = {}
        #: connection attempts that were dropped and retried (MaxStartups), for reports
        self.retries = 0

    def settings(self, alias: str) -> HostSettings:
        return self.config.lookup(alias)

    def known_hosts(self, s: HostSettings) -> KnownHosts:
        files = s.user_known_hosts + s.global_known_hosts
        with self._lock:
            if files not in self._known:
                self._known[files] = KnownHosts(files)
            return self._known[files]

    # -- connecting ---------------------------------------------------------
    def connect(self, s: HostSettings, *, depth: int = 0) -> Any:
        """A connected, host-key-verified, authenticated fabric Connection."""
        timeout = s.connect_timeout or self.connect_timeout
        if s.proxy_command and not s.proxy_jump:
            raise HostUnreachable(s.alias, "ProxyCommand is not supported by rocmdoctor",
                                  "use ProxyJump (or `ssh -W` hops expressed as ProxyJump) for this host",
                                  reason="config")
        gateway = self._gateway(s, depth) if s.proxy_jump else None
        attempt = 0
        while True:
            try:
                return self._connect_once(s, gateway, timeout)
            except HostUnreachable as exc:
                if exc.reason != "dropped" or attempt >= self.connect_retries:
                    raise
            attempt += 1
            with self._lock:
                self.retries += 1
            time.sleep(self.retry_backoff * (2 ** (attempt - 1)) * (1 + random.random()))

    def _connect_once(self, s: HostSettings, gateway: Any, timeout: float) -> Any:
        import paramiko

        start = time.monotonic()
        sock = self._open_socket(s, gateway, timeout)
        conn = self._new_connection(s, sock, timeout)
        known = self.known_hosts(s)
        conn.client.set_missing_host_key_policy(
            make_policy(s.alias, s.known_hosts_name, s.hostname, s.port, known, self.accept_new_host_keys))
        # hand paramiko only this host's keys, under the name paramiko computes
        paramiko_name = s.hostname if s.port == 22 else f"[{s.hostname}]:{s.port}"
        for ktype, key in known.lookup(s.known_hosts_name).items():
            conn.client.get_host_keys().add(paramiko_name, ktype, key)
        try:
            conn.open()
            return conn
        except SSHError:
            conn.close()
            raise
        except paramiko.BadHostKeyException as exc:
            conn.close()
            raise changed_key_error(s.alias, s.known_hosts_name, exc.key, known.files) from None
        except paramiko.AuthenticationException:
            conn.close()
            keys = ", ".join(s.identity_files) or "ssh-agent and default keys"
            raise AuthFailed(s.alias, f"authentication as {s.user} failed (tried {keys})",
                             f"check the key is in the node's authorized_keys; try `ssh -v {s.alias}`") from None
        except (paramiko.SSHException, EOFError, OSError) as exc:
            conn.close()
            if time.monotonic() - start >= timeout * 0.95:
                # paramiko's kex deadline and banner timeout race; either way it is a hang
                raise HostUnreachable(s.alias, f"no SSH handshake within {timeout:g}s",
                                      "host down, firewalled or sshd hung; raise the connect timeout if the link is slow",
                                      reason="timeout") from None
            raise classify(s.alias, exc, timeout) from None

    def _open_socket(self, s: HostSettings, gateway: Any, timeout: float) -> Any:
        if gateway is not None:
            try:
                return gateway.transport.open_channel(
                    "direct-tcpip", (s.hostname, s.port), ("127.0.0.1", 0), timeout=timeout)
            except Exception as exc:  # paramiko raises ChannelException/SSHException/EOFError
                code = getattr(exc, "code", None)  # RFC 4254 open failure: 1 prohibited, 2 connect failed
                why = {1: "forwarding is prohibited there", 2: "connection refused or unreachable"}.get(
                    code, str(exc) or type(exc).__name__)
                raise HostUnreachable(s.alias, f"jump host could not reach {s.hostname}:{s.port}: {why}",
                                      "check HostName/Port, and AllowTcpForwarding on the jump host",
                                      reason="refused" if code in (1, 2) else "dropped") from None
        try:
            sock = socket.create_connection((s.hostname, s.port), timeout=timeout)
        except OSError as exc:
            raise classify(s.alias, exc, timeout, where=f"{s.hostname}:{s.port}") from None
        except UnicodeError:    # the resolver's IDNA step: an empty label or one over 63 characters
            raise HostUnreachable(s.alias, f"{s.hostname!r} is not a valid host name (an empty label or one "
                                  "longer than 63 characters)", "check the host name; a bundle is a path "
                                  "that exists (`rocmdoctor triage --from DIR`)", reason="dns") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def _new_connection(self, s: HostSettings, sock: Any, timeout: float) -> Any:
        from fabric import Config, Connection
        import paramiko

        logging.getLogger("paramiko").addHandler(logging.NullHandler())
        with _construct_lock:
            if self._fabric_config is None:
                # an explicit empty SSHConfig: fabric must not re-read and re-look-up ssh_config
                self._fabric_config = Config(ssh_config=paramiko.SSHConfig(), lazy=True)
            # Each Connection gets its own copy: fabric uses the Config object it is given
            # directly and merges it lazily, and a merge racing a read in another thread
            # made a host fail with "No attribute or config key found for 'authentication'"
            # (1 of 1000 hosts in a fan-out of 64). A clone costs ~0.5 ms.
            return Connection(
                s.hostname, user=s.user, port=s.port, config=self._fabric_config.clone(), gateway=False,
                connect_kwargs={
                    "sock": sock,
                    "timeout": timeout,
                    "banner_timeout": timeout,
                    "auth_timeout": timeout,
                    **self._identities(s),
                    "look_for_keys": not s.identity_files,
                    "allow_agent": not s.identities_only,
                    "transport_factory": _quickack_transport,
                },
            )

    def _identities(self, s: HostSettings) -> dict[str, Any]:
        """The first usable IdentityFile as a key loaded once per run, the others as paths.

        Missing files are skipped as `ssh` does; so are passphrase-protected
        ones (we never prompt: load them into ssh-agent instead).
        """
        import paramiko

        usable: list[str] = [f for f in s.identity_files if os.path.isfile(f)]
        first = None
        with self._lock:
            for f in list(usable):
                if f not in self._pkeys:
                    try:
                        self._pkeys[f] = paramiko.PKey.from_path(f)
                    except (paramiko.SSHException, OSError, ValueError):
                        self._pkeys[f] = None
                if self._pkeys[f] is None:
                    usable.remove(f)
                elif first is None:
                    first = self._pkeys[f]
                    usable.remove(f)
        return {"pkey": first, "key_filename": usable}

    def _gateway(self, s: HostSettings, depth: int) -> Any:
        """One shared connection per jump chain; hosts behind it open channels over it."""
        hops = s.proxy_jump
        if depth >= MAX_JUMP_DEPTH:
            raise HostUnreachable(s.alias, f"ProxyJump chain deeper than {MAX_JUMP_DEPTH} (a loop?)", reason="config")
        with self._lock:
            lock = self._gateway_locks.setdefault(hops, threading.Lock())
        with lock:
            conn = self._gateways.get(hops)
            if conn is not None and conn.is_connected:
                return conn
            user, host, port = parse_jump(hops[-1])
            hop = self.settings(host)
            hop = dataclasses.replace(hop, user=user or hop.user, port=port or hop.port,
                                      proxy_jump=hops[:-1] or hop.proxy_jump)
            try:
                conn = self.connect(hop, depth=depth + 1)
            except SSHError as exc:
                raise type(exc)(s.alias, f"via jump host {hops[-1]}: {exc.message}", exc.hint,
                                reason=exc.reason) from None
            self._gateways[hops] = conn
            return conn

    def close(self) -> None:
        with self._lock:
            gateways, self._gateways = list(self._gateways.values()), {}
        for conn in gateways:
            conn.close()


def _quickack_transport(sock: Any, **kwargs: Any) -> Any:
    """A paramiko Transport that ACKs every packet at once (see the module docstring)."""
    import paramiko

    transport = paramiko.Transport(sock, **kwargs)
    quickack = getattr(socket, "TCP_QUICKACK", None)
    if quickack is None or not isinstance(sock, socket.socket):
        return transport  # not Linux, or tunnelled through a jump host's channel
    packetizer = transport.packetizer
    read_message = packetizer.read_message

    def read_and_ack() -> Any:
        message = read_message()
        try:
            sock.setsockopt(socket.IPPROTO_TCP, quickack, 1)
        except OSError:
            pass
        return message

    packetizer.read_message = read_and_ack  # type: ignore[method-assign]
    return transport


def classify(alias: str, exc: BaseException, timeout: float, where: str = "") -> HostUnreachable:
    """Map a socket/paramiko failure to one line with a reason code."""
    cause = exc.__context__ if "banner" in str(exc) and exc.__context__ else exc
    at = f" ({where})" if where else ""
    if isinstance(cause, socket.gaierror):
        return HostUnreachable(alias, f"cannot resolve host name{at}: {cause.strerror}",
                               "check HostName in your ssh config or DNS", reason="dns")
    if isinstance(cause, ConnectionRefusedError):
        return HostUnreachable(alias, f"connection refused{at}", "is sshd running and the Port right?",
                               reason="refused")
    if isinstance(cause, (socket.timeout, TimeoutError)):
        stage = "no SSH banner" if cause is not exc else "connect timed out"
        return HostUnreachable(alias, f"{stage} after {timeout:g}s{at}",
                               "host down, firewalled or sshd hung; raise --connect-timeout if the link is slow",
                               reason="timeout")
    if isinstance(cause, OSError) and cause.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return HostUnreachable(alias, f"no route to host{at}", reason="unreachable")
    if isinstance(cause, (EOFError, ConnectionResetError, ConnectionAbortedError, BrokenPipeError)) \
            or "banner" in str(exc) or "closed" in str(exc).lower():
        return HostUnreachable(alias, f"connection dropped by the server{at}",
                               "sshd MaxStartups or a firewall closed it; retried with backoff", reason="dropped")
    return HostUnreachable(alias, f"SSH error{at}: {exc}", reason="protocol")
