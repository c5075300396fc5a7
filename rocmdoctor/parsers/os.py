"""/proc/cmdline and /etc/modprobe.d/*.conf: how the kernel and modules were told to behave.

`nomodeset`, `amdgpu.*=` and `iommu=` on the command line, and `blacklist
amdgpu` / `options amdgpu ...` / `install amdgpu /bin/false` in modprobe.d are
the usual "driver never loaded" causes. (os-release is read by the generic
`keyvalue` parser.)
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, continued_lines, parsed, parser

_TOKEN = re.compile(r'(?:[^\s"]+|"[^"]*")+')


def _unquote(value: str) -> str:
    return value.replace('"', "")


_BLACKLIST_PARAMS = ("modprobe.blacklist", "module_blacklist")


@parser("cmdline")
def parse_cmdline(text: str) -> dict[str, Any]:
    """Kernel command line parameters from /proc/cmdline.

    Returns `{raw: str, params: {name: value|True}, args: [[name, value|True]],
    modules: {module: {param: value}}, blacklisted: {module: ["name=value", ...]}}`. A repeated
    name keeps its last value in `params` (as the kernel does for most options); `args` keeps all
    in order; `modules` groups `amdgpu.noretry=0`-style module parameters; `blacklisted` names
    each module that `modprobe.blacklist=` (kmod, honoured in the initramfs too) or
    `module_blacklist=` (the kernel's own) lists, with the arguments that do. Double quotes
    (`foo="a b"`) are honoured and stripped. Raises ParseError on text with more than one line.
    """
    raw = text.strip()
    if "\n" in raw:
        raise ParseError("/proc/cmdline has one line; got several")
    params: dict[str, Any] = {}
    args: list[list[Any]] = []
    modules: dict[str, dict[str, Any]] = {}
    blacklisted: dict[str, list[str]] = {}
    for tok in _TOKEN.findall(raw):
        name, eq, value = tok.partition("=")
        name = _unquote(name)
        val: Any = _unquote(value) if eq else True
        params[name] = val
        args.append([name, val])
        if "." in name and not name.startswith("."):
            mod, _, key = name.partition(".")
            modules.setdefault(mod.replace("-", "_"), {})[key] = val
        if name in _BLACKLIST_PARAMS and isinstance(val, str):
            for mod in filter(None, val.split(",")):
                blacklisted.setdefault(mod, []).append(f"{name}={val}")
    return {"raw": raw, "params": params, "args": args, "modules": modules, "blacklisted": blacklisted}


@parser("log_cmdline")
def parse_log_cmdline(text: str) -> dict[str, Any] | None:
    """The command line the kernel printed at boot (`Command line: ...`, the first line of a full
    dmesg), for tickets that paste the log but not /proc/cmdline.

    Returns parse_cmdline's dict with `line`, the kernel log line it came from, or None when the
    log has no such line (a `dmesg | grep amdgpu` excerpt). Raises ParseError like `kernel_log`.
    """
    for ev in parsed("kernel_events", text):
        if ev["kind"] == "boot_cmdline":
            return {**parse_cmdline(ev["fields"]["cmdline"]), "line": ev["line"]}
    return None


_DIRECTIVES = {"alias", "blacklist", "options", "install", "remove", "softdep"}


@parser("modprobe_conf")
def parse_modprobe_conf(text: str) -> list[dict[str, Any]]:
    """Directives of a modprobe.d configuration file (man modprobe.d).

    Returns `[{directive, module, args: str, params: {k: v|True}, line: int}]`
    for `blacklist`, `options`, `install`, `remove`, `alias`, `softdep`
    (`alias` has the wildcard as `module` and the target as `args`); `params`
    is filled for `options`. Comments and backslash continuations are handled.
    Raises ParseError on an unknown directive.
    """
    out: list[dict[str, Any]] = []
    for start, line in continued_lines(text):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        directive = parts[0]
        if directive not in _DIRECTIVES:
            raise ParseError(f"line {start}: unknown modprobe.d directive {directive!r}")
        if len(parts) < 2:
            raise ParseError(f"line {start}: `{directive}` without a module name")
        rest = parts[2] if len(parts) > 2 else ""
        params: dict[str, Any] = {}
        if directive == "options":
            for tok in _TOKEN.findall(rest):
                k, eq, v = tok.partition("=")
                params[k] = _unquote(v) if eq else True
        out.append({"directive": directive, "module": parts[1].replace("-", "_") if directive != "alias" else parts[1],
                    "args": rest, "params": params, "line": start})
    return out
