"""Run commands on this machine, optionally against a mounted root (`--rootfs`)."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from rocmdoctor.results import CommandResult
from rocmdoctor.transports.base import Transport


class LocalTransport(Transport):
    host = "local"

    def __init__(self, *, host: str = "local", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.host = host

    def _exec(self, command: str, *, timeout: float, stdin: str | None, sudo: bool) -> CommandResult:
        argv = ["sh", "-c", command]
        if sudo and os.geteuid() != 0:
            argv = ["sudo", "-n", "--", *argv]
        env = dict(os.environ)
        env.update(self.env)
        start = time.monotonic()
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,  # so a timeout can kill the whole process group
        )
        timed_out = False
        try:
            out, err = proc.communicate(input=stdin.encode() if stdin is not None else None, timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = proc.communicate()
        duration = int((time.monotonic() - start) * 1000)
        return CommandResult(
            command=command,
            host=self.host,
            exit_status=124 if timed_out else proc.returncode,
            stdout=out.decode("utf-8", "replace"),
            stderr=err.decode("utf-8", "replace"),
            duration_ms=duration,
            timed_out=timed_out,
        )
