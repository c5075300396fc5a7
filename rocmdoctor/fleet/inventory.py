"""Sweep targets: `@FILE` inventories and hostlist expressions -> HostSpec values.

`@hosts.txt` is a plain list: one hostlist expression per line (several per
line separated by blanks are fine), `#` starts a comment. `@fleet.yaml`
(suffix .yaml/.yml) is an inventory with per-host settings:

    defaults: {user: ops, vars: {expect_gpus: 8}}
    groups:
      mi300x: {hosts: ["gpu[001-064]"], jump: bastion, vars: {expect_gpus: 8}}
    hosts:
      gpu007: {hostname: 10.0.0.7, port: 2222, env: {ROCR_VISIBLE_DEVICES: "0,1"}}

Settings are layered defaults < groups (file order) < hosts, `env`/`vars`
merged key by key. `@fleet.yaml:mi300x` selects one group. Everything a host
does not set comes from the user's ssh_config, so an inventory only needs
to say what differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from rocmdoctor.errors import DefinitionError
from rocmdoctor.fleet.hostlist import HostlistError, expand, split_top_level

_SETTINGS = {"hostname": str, "user": str, "port": int, "jump": str, "rootfs": str, "env": dict, "vars": dict}


@dataclass(frozen=True)
class HostSpec:
    """One host of a sweep and what differs for it from the ssh_config."""

    name: str
    hostname: str = ""
    user: str = ""
    port: int | None = None
    jump: str = ""
    rootfs: str = ""
    env: dict[str, str] = field(default_factory=dict)
    vars: dict[str, Any] = field(default_factory=dict)
    groups: tuple[str, ...] = ()


def _settings(data: Any, where: str, line: int | None) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise DefinitionError(where, line, "host settings must be a mapping", f"keys: {', '.join(_SETTINGS)}")
    out: dict[str, Any] = {}
    for key, value in data.items():
        kline = getattr(data, "key_lines", {}).get(key, line)
        if key in ("hosts",):
            continue
        if key not in _SETTINGS:
            raise DefinitionError(where, kline, f"unknown host setting '{key}'", f"known: {', '.join(_SETTINGS)}")
        kind = _SETTINGS[key]
        if kind is int and (isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536):
            raise DefinitionError(where, kline, f"'{key}' must be a port number 1-65535, not {value!r}")
        if kind is str and not isinstance(value, str):
            raise DefinitionError(where, kline, f"'{key}' must be a string, not {value!r}", "quote it")
        if kind is dict:
            if not isinstance(value, dict):
                raise DefinitionError(where, kline, f"'{key}' must be a mapping NAME: value")
            value = {str(k): (str(v) if key == "env" else v) for k, v in value.items()}
        out[key] = value
    return out


def _layer(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for k, v in top.items():
        merged[k] = {**base.get(k, {}), **v} if k in ("env", "vars") else v
    return merged


def _expand(expr: Any, where: str, line: int | None) -> list[str]:
    if not isinstance(expr, str):
        raise DefinitionError(where, line, f"host entry must be a string, not {expr!r}")
    try:
        return expand(expr)
    except HostlistError as exc:
        raise DefinitionError(where, line, exc.message, exc.hint) from None


def load_yaml_inventory(path: Path, group: str | None = None) -> list[HostSpec]:
    from rocmdoctor.catalog.yaml_lines import line_of, load_yaml

    where = str(path)
    data = load_yaml(path.read_text(encoding="utf-8"), where)
    if isinstance(data, list):  # a bare YAML list of hosts
        data = {"groups": {"all": {"hosts": data}}}
    if not isinstance(data, dict):
        raise DefinitionError(where, 1, "an inventory is a mapping with defaults/groups/hosts",
                              "see docs/sweeps.md, or use a plain .txt host list")
    unknown = set(data) - {"defaults", "groups", "hosts"}
    if unknown:
        key = sorted(unknown)[0]
        raise DefinitionError(where, line_of(data, key), f"unknown inventory key '{key}'", "use defaults, groups, hosts")
    defaults = _settings(data.get("defaults"), where, line_of(data, "defaults"))
    layered: dict[str, dict[str, Any]] = {}
    member_of: dict[str, list[str]] = {}
    groups = data.get("groups") or {}
    if not isinstance(groups, dict):
        raise DefinitionError(where, line_of(data, "groups"), "'groups' must map group names to {hosts: [...]}")
    if group is not None and group not in groups:
        raise DefinitionError(where, line_of(data, "groups"), f"no group '{group}'",
                              f"groups: {', '.join(groups) or 'none'}")
    for gname, gdata in groups.items():
        gline = line_of(groups, gname)
        gdata = gdata if gdata is not None else {}
        if not isinstance(gdata, dict) or not isinstance(gdata.get("hosts", []), list):
            raise DefinitionError(where, gline, f"group '{gname}' must be a mapping with a 'hosts' list")
        gset = _settings(gdata, where, gline)
        items = gdata.get("hosts", [])
        lines = getattr(items, "item_lines", [gline] * len(items))
        for expr, line in zip(items, lines):
            for h in _expand(expr, where, line):
                layered[h] = _layer(layered.get(h, defaults), gset)
                member_of.setdefault(h, []).append(gname)
    hosts = data.get("hosts") or {}
    if isinstance(hosts, list):
        hosts = {h: None for h in hosts}
    if not isinstance(hosts, dict):
        raise DefinitionError(where, line_of(data, "hosts"), "'hosts' must map host names to settings")
    for expr, hdata in hosts.items():
        line = line_of(hosts, expr)
        hset = _settings(hdata, where, line)
        for h in _expand(expr, where, line):
            layered[h] = _layer(layered.get(h, defaults), hset)
    names = [h for h in layered if group is None or group in member_of.get(h, [])]
    if not names:
        raise DefinitionError(where, None, "the inventory names no host", "add hosts under groups: or hosts:")
    return [HostSpec(name=h, groups=tuple(member_of.get(h, ())), **layered[h]) for h in names]


def load_plain_list(path: Path) -> list[HostSpec]:
    hosts: list[str] = []
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for expr in raw.split("#", 1)[0].split():
            hosts.extend(_expand(expr, str(path), lineno))
    if not hosts:
        raise DefinitionError(str(path), None, "the host list is empty", "one host or hostlist expression per line")
    return [HostSpec(name=h) for h in dict.fromkeys(hosts)]


def load_inventory(ref: str) -> list[HostSpec]:
    """`FILE` or `FILE:GROUP` (YAML only) -> hosts."""
    path, group = Path(ref), None
    if not path.exists() and ":" in ref:
        head, _, group = ref.rpartition(":")
        path = Path(head)
    if not path.is_file():
        raise DefinitionError(ref, None, "no such inventory file", "@FILE names a host list or a YAML inventory")
    try:
        if path.suffix in (".yaml", ".yml"):
            return load_yaml_inventory(path, group)
        if group is not None:
            raise DefinitionError(ref, None, "groups (FILE:GROUP) need a YAML inventory")
        return load_plain_list(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise DefinitionError(str(path), None, f"cannot read: {exc}") from None


def _is_file_ref(ref: str) -> bool:
    head = ref.rpartition(":")[0] if ":" in ref and not Path(ref).exists() else ref
    return Path(ref).exists() or Path(head).is_file()


def _is_group_name(ref: str) -> bool:
    """`@gpu`, `@rack[1-2]`, `@slurm:gpu`: no path separator and no file extension."""
    return "/" not in ref and not ref.endswith((".yaml", ".yml", ".txt", ".list"))


def resolve_targets(targets: Iterable[str], exclude: Iterable[str] = ()) -> list[HostSpec]:
    """Sweep arguments -> hosts, in order, each once (a later mention's settings win); `exclude`
    holds hostlist expressions or @groups to leave out, as `clush -x` does."""
    out: dict[str, HostSpec] = {}
    for t in targets:
        if t.startswith("@") and not _is_file_ref(t[1:]) and _is_group_name(t[1:]):
            # not a file: a ClusterShell group (@gpu, @rack1, @slurm:partition), as clush -w reads it
            try:
                specs = [HostSpec(name=h) for h in expand(t)]
            except HostlistError as exc:
                raise HostlistError(f"{t}: no inventory file '{t[1:]}' and {exc.message.split(': ', 1)[-1]}",
                                    "@FILE names a host list or YAML inventory; @GROUP a ClusterShell group "
                                    "(/etc/clustershell/groups.d/*.yaml)") from None
        elif t.startswith("@"):
            specs = load_inventory(t[1:])
        elif t.startswith("demo:") and "," in t:
            specs = [HostSpec(name=part) for part in split_top_level(t)]   # demo:a,demo:b
        elif t == "local" or t.startswith("demo:"):
            specs = [HostSpec(name=t)]
        else:
            specs = [HostSpec(name=h) for h in expand(t)]
        for s in specs:
            out[s.name] = s
    excluded = {h for x in exclude for h in expand(x)}
    if excluded:
        out = {name: spec for name, spec in out.items() if name not in excluded}
    if not out:
        raise HostlistError("no hosts to sweep" + (" (all excluded by -x)" if excluded else ""),
                            "give hosts, hostlist expressions or @FILE")
    return list(out.values())


def with_vars(spec: HostSpec, extra: dict[str, Any]) -> HostSpec:
    """Command-line --var values override inventory vars."""
    return replace(spec, vars={**spec.vars, **extra}) if extra else spec
