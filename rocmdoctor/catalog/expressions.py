"""Sandboxed Jinja2 for rule conditions, messages and remediation commands.

Three environments with one sandbox: expressions (`when`, `outputs`), text
templates (messages, evidence, causes) and shell templates, where EVERY
`{{ ... }}` output passes through `shlex.quote` (Jinja2's `finalize`), so a
hostile value from a node cannot inject a command.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import re
import shlex
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import StrictUndefined, nodes
from jinja2.environment import TemplateExpression
from jinja2.exceptions import TemplateError, TemplateSyntaxError
from jinja2.parser import Parser
from jinja2.sandbox import ImmutableSandboxedEnvironment

from rocmdoctor.catalog.gpu_facts import (gfx_version_number, gpu_targets, last_listed, pci_gpu_targets, rocm_release,
                                          stated_gpu_targets, stated_release, stated_torch, torch_wheel_lacks,
                                          version_key)
from rocmdoctor.catalog.known_bugs import amdgpu_oops, kernel_fix_status, known_bug_matches
from rocmdoctor.catalog.release_bugs import documented_wrong_results, log_line_naming
from rocmdoctor.catalog.package_facts import rocm_package_releases
from rocmdoctor.errors import ExpressionError  # noqa: F401  (raised here; defined light for the compiler)


def _bytes_h(value: Any) -> str:
    try:
        n = float(value)
    except (TypeError, ValueError):
        return str(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(value)


def _utc(value: Any) -> str:
    """Seconds since the epoch (a stat's mtime) as the date a person compares: `2025-09-18 11:09 UTC`."""
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(value)))
    except (TypeError, ValueError, OverflowError, OSError):
        return str(value)


def _regex_search(value: Any, pattern: str) -> str | None:
    m = re.search(pattern, str(value or ""), re.MULTILINE)
    if not m:
        return None
    return m.group(1) if m.groups() else m.group(0)


def _regex_findall(value: Any, pattern: str) -> list[Any]:
    return re.findall(pattern, str(value or ""), re.MULTILINE)


def _octal(value: Any) -> int:
    return int(str(value), 8)


def _dir_map(value: Any) -> dict[str, Any]:
    """{'/sys/bus/pci/devices/0000:05:00.0/vendor': x} -> {'0000:05:00.0': x}: sysfs globs by device."""
    return {os.path.basename(os.path.dirname(str(k))): v for k, v in dict(value or {}).items()}


def _join_maps(maps: Any) -> list[dict[str, Any]]:
    """{'used': {k: a}, 'total': {k: b}} -> [{'key': k, 'used': a, 'total': b}] over the first map's keys
    (sorted; a key missing from a later map gives None): lines up per-device sysfs values."""
    maps = dict(maps or {})
    if not maps:
        return []
    names = list(maps)
    first = dict(maps[names[0]] or {})
    return [{"key": k, **{n: dict(maps[n] or {}).get(k) for n in names}} for k in sorted(first)]


_DIGITS = re.compile(r"(\d+)")


def _natsort(value: Any) -> list[tuple[str, Any]]:
    """A glob's {path: value} as (path, value) pairs in natural order: `nodes/2` before `nodes/10`
    (KFD topology nodes, hwmon10), where `dictsort` would put `nodes/10` first."""
    def key(path: str) -> list[Any]:
        return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in _DIGITS.split(path) if p]
    return sorted(dict(value or {}).items(), key=lambda kv: key(str(kv[0])))


def _item_expr(source: str) -> Any:
    return _compiled_expr(str(source))


def _select_expr(seq: Any, source: str, **names: Any) -> list[Any]:
    """Items for which the sandboxed expression (with `item` and keyword `names` bound) holds:
    per-item arithmetic such as `select_expr('item.used >= item.total * pct / 100', pct=90)`,
    which Jinja's select/selectattr tests cannot do."""
    fn = _item_expr(source)
    return [x for x in (seq or []) if fn(item=x, **names)]


def _map_expr(seq: Any, source: str, **names: Any) -> list[Any]:
    """The sandboxed expression's value for each item (`item` and keyword `names` bound)."""
    fn = _item_expr(source)
    return [fn(item=x, **names) for x in (seq or [])]


# Words that name the vendor, a trademark or a form factor rather than the product: rocminfo
# says "AMD Radeon(TM) 8060S Graphics", clinfo "Radeon 8060S Graphics", AMD's tables "Radeon 8060S".
_PRODUCT_NOISE = re.compile(r"\(tm\)|\(r\)|[\u2122\u00ae]|\(?\b\d+gb\b\)?|\bradeon instinct\b|\b(?:amd|instinct|graphics|accelerator)\b")


def product_key(name: Any) -> str:
    """A GPU product name reduced to the words that tell products apart (lower case)."""
    return " ".join(_PRODUCT_NOISE.sub(" ", str(name or "").lower()).split())


def _product_target(name: Any, targets: Any) -> str | None:
    """The target (`gfx1151`) that `targets` ({gfx: [product names]}) gives the product `name`;
    None for an unknown or generic name, or one the table lists under two targets."""
    key = product_key(name)
    found = {gfx for gfx, names in dict(targets or {}).items() for n in names or [] if product_key(n) == key}
    return found.pop() if key and len(found) == 1 else None


def _used_by(modules: Any, user: str) -> list[str]:
    """The modules (a `proc_modules` or `lsmod` table, `{name: {deps: [...]}}`) that `user` uses,
    sorted: each names `user` among its holders. One of them proves `user` loaded even when a
    pasted `lsmod | grep` left `user`'s own line out."""
    return sorted(name for name, rec in dict(modules or {}).items() if user in ((rec or {}).get("deps") or []))


def _previous_boot_log(journal: Any, syslogs: Any) -> dict[str, Any]:
    """The previous boot's kernel events, wherever the node kept them: the journal's
    (`journalctl -k -b -1`, a persistent journal), else the first rsyslog file (`[[path,
    syslog_previous_boot result], ...]` in the order to try) that reaches back to a boot boundary.
    `{source, events, abrupt_end}`; `source` and `events` None when none does."""
    if journal is not None:
        return {"source": "journalctl -k -b -1", "events": journal, "abrupt_end": False}
    for path, read in syslogs or []:
        if read and read.get("found"):
            return {"source": path, "events": read["events"], "abrupt_end": bool(read.get("abrupt_end"))}
    return {"source": None, "events": None, "abrupt_end": False}


def _iommu_mode(domain: Any, cmdline: Any) -> str | None:
    """passthrough / translated / off / None from the kernel's "Default domain type" (`domain`, which
    decides) else a parsed command line: iommu=pt passes through, amd_iommu=off / intel_iommu=off /
    iommu=off turn it off, neither leaves the distributions' default (translated); None: no evidence.
    Shared by hw.pcie_link and slow.iommu_mode so both read the IOMMU the same way."""
    if domain:
        return "passthrough" if domain == "Passthrough" else "translated"
    if not cmdline:
        return None
    p = cmdline.get("params") or {}
    if p.get("iommu") == "pt" or p.get("iommu.passthrough") == "1":
        return "passthrough"
    if "off" in (p.get("amd_iommu"), p.get("intel_iommu"), p.get("iommu")):
        return "off"
    return "translated"


def _gfx_version_parts(value: Any) -> list[int]:
    """HSA_OVERRIDE_GFX_VERSION as the thunk reads it (libhsakmt topology.c: sscanf "%u.%u.%u%c" must give
    three numbers): [major, minor, stepping], or [] for an unset value or one the thunk rejects. Shared by the
    node's environment (runtime.gfx_override) and a job's log (runtime.gfx_override_logged)."""
    if value is None:
        return []
    parts = str(value).strip().split(".")
    if len(parts) != 3 or not all(re.fullmatch(r"[0-9]{1,3}", p) for p in parts):
        return []
    return [int(p) for p in parts]


FILTERS = {
    "gfx_version_parts": _gfx_version_parts,
    "known_bug_matches": known_bug_matches,
    "log_line_naming": log_line_naming,
    "documented_wrong_results": documented_wrong_results,
    "amdgpu_oops": amdgpu_oops,
    "kernel_fix_status": kernel_fix_status,
    "iommu_mode": _iommu_mode,
    "previous_boot_log": _previous_boot_log,
    "product_target": _product_target,
    "pci_gpu_targets": pci_gpu_targets,
    "gpu_targets": gpu_targets,
    "rocm_release": rocm_release,
    "rocm_package_releases": rocm_package_releases,
    "stated_release": stated_release,
    "stated_gpu_targets": stated_gpu_targets,
    "torch_wheel_lacks": torch_wheel_lacks,
    "stated_torch": stated_torch,
    "gfx_version_number": gfx_version_number,
    "last_listed": last_listed,
    "used_by": _used_by,
    "join_maps": _join_maps,
    "select_expr": _select_expr,
    "map_expr": _map_expr,
    "dir_map": _dir_map,
    "natsort": _natsort,
    "basename": lambda v: os.path.basename(str(v)),
    "dirname": lambda v: os.path.dirname(str(v)),
    "octal": _octal,
    "version_key": version_key,
    "version_sort": lambda v: sorted((x for x in (v or ()) if x is not None), key=version_key),
    "bytes_h": _bytes_h,
    "utc": _utc,
    "regex_search": _regex_search,
    "regex_findall": _regex_findall,
    "shquote": lambda v: shlex.quote(str(v)),
}


TESTS = {
    "match": lambda v, p: re.match(p, str(v)) is not None,
    "search": lambda v, p: re.search(p, str(v), re.MULTILINE) is not None,
    # A node value as the needle: plain substring, never a pattern (`msg is contains(f ~ ' failed')`).
    "contains": lambda v, s: str(s) in str(v),
}

# Tests and filters whose first argument is compiled: a regular expression or a
# sandboxed expression. validate_literal_arguments() requires it to be a literal
# of the definition, so no value read from a node can become code.
CODE_TESTS = {"match", "search"}
CODE_FILTERS = {"regex_search", "regex_findall", "select_expr", "map_expr"}
_HIGHER_ORDER = {"select", "reject", "selectattr", "rejectattr", "map"}  # name a test/filter as a string


def _literal_argument_errors(tree: Any) -> list[str]:
    errors: list[str] = []

    def literal(node: Any) -> bool:
        return isinstance(node, nodes.Const) and isinstance(node.value, str)

    found = [tree] if isinstance(tree, (nodes.Test, nodes.Filter)) else []  # find_all skips the root
    for node in [*found, *tree.find_all((nodes.Test, nodes.Filter))]:
        args = list(node.args)
        if (isinstance(node, nodes.Test) and node.name in CODE_TESTS) or \
                (isinstance(node, nodes.Filter) and node.name in CODE_FILTERS):
            if not args or not literal(args[0]):
                errors.append(f"the pattern of '{node.name}' must be a quoted literal, not a value "
                              "(use the 'contains' test to look for a value)")
            elif node.name in CODE_TESTS or node.name.startswith("regex_"):
                errors.extend(_regex_error(node.name, args[0].value))
            else:  # select_expr / map_expr: the inner expression obeys the same rule
                try:
                    errors.extend(_literal_argument_errors(_parse_expr(expr_env, args[0].value)))
                except TemplateError as exc:
                    errors.append(f"'{node.name}' expression {args[0].value!r}: {exc.message or exc}")
        elif isinstance(node, nodes.Filter) and node.name in _HIGHER_ORDER:
            for i, arg in enumerate(args):
                if literal(arg) and arg.value in CODE_TESTS | CODE_FILTERS:
                    if i + 1 >= len(args) or not literal(args[i + 1]):
                        errors.append(f"the pattern given to {node.name}('{arg.value}', ...) must be a quoted "
                                      "literal, not a value (use 'contains' to look for a value)")
                    elif arg.value in CODE_TESTS or arg.value.startswith("regex_"):
                        errors.extend(_regex_error(arg.value, args[i + 1].value))
                    break
    return errors


def _regex_error(name: str, pattern: str) -> list[str]:
    try:
        re.compile(pattern)
    except re.error as exc:
        return [f"'{name}' pattern {pattern!r} is not a valid regular expression: {exc}"]
    return []


def _make(finalize: Any = None) -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False,
                                        keep_trailing_newline=False, finalize=finalize)
    env.filters.update(FILTERS)
    env.tests.update(TESTS)
    return env


def _shell_finalize(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(shlex.quote(str(v)) for v in value)
    return shlex.quote(str(value))


expr_env = _make()
text_env = _make()
shell_env = _make(_shell_finalize)


@lru_cache(maxsize=1)
def _code_cache_dir() -> Path | None:
    from rocmdoctor.paths import cache_dir

    import jinja2

    d = cache_dir() / "jinja" / f"{jinja2.__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return d


def _compile(env: ImmutableSandboxedEnvironment, kind: str, source: str) -> Any:
    """Compile a template or expression, reusing compiled code from the cache dir.

    Jinja2 compiles each of the catalog's ~600 templates in ~5 ms; marshalled code
    objects load in microseconds, so a warm triage starts in well under a second.
    """
    key = hashlib.sha256(f"{kind}\0{source}".encode()).hexdigest()
    cache = _code_cache_dir()
    code = None
    if cache is not None:
        try:
            code = marshal.loads((cache / key).read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            code = None
    if code is None:
        if kind == "expr":
            node: Any = nodes.Template([nodes.Assign(nodes.Name("result", "store"), _parse_expr(env, source),
                                                     lineno=1)], lineno=1)
            node.set_environment(env)
            code = env.compile(node)
        else:
            code = env.compile(source)
        if cache is not None:
            tmp = cache / f".{key}.{os.getpid()}"
            try:
                tmp.write_bytes(marshal.dumps(code))
                tmp.replace(cache / key)
            except OSError:
                pass
    template = env.template_class.from_code(env, code, env.make_globals(None), None)
    return TemplateExpression(template, False) if kind == "expr" else template


def _parse_expr(env: ImmutableSandboxedEnvironment, source: str) -> Any:
    parser = Parser(env, source, state="variable")
    expr = parser.parse_expression()
    if not parser.stream.eos:
        raise TemplateSyntaxError("chunk after expression", parser.stream.current.lineno, None, None)
    return expr


@lru_cache(maxsize=4096)
def _compiled_expr(source: str) -> Any:
    return _compile(expr_env, "expr", source)


@lru_cache(maxsize=4096)
def _compiled_text(source: str) -> Any:
    return _compile(text_env, "text", source)


@lru_cache(maxsize=1024)
def _compiled_shell(source: str) -> Any:
    return _compile(shell_env, "shell", source)


@lru_cache(maxsize=8192)
def check_syntax(source: str, kind: str) -> str | None:
    """None when `source` parses, else the error message (for validation).

    Parsing only: compiling waits until a template is used."""
    try:
        if kind == "expr":
            tree = _parse_expr(expr_env, source)
        else:
            tree = (shell_env if kind == "shell" else text_env).parse(source)
    except TemplateError as exc:
        return str(exc.message or exc)
    errors = _literal_argument_errors(tree)
    return errors[0] if errors else None


_EVAL_ERRORS = (TemplateError, TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError,
                re.error, OverflowError, RecursionError, UnicodeError)


def _run(source: str, fn: Any) -> Any:
    """Call `fn`; whatever a template does wrong becomes one ExpressionError naming it."""
    try:
        return fn()
    except _EVAL_ERRORS as exc:
        detail = exc.message if isinstance(exc, TemplateError) and exc.message else exc
        raise ExpressionError(f"{source!r}: {detail}") from None


def evaluate(source: str, scope: dict[str, Any]) -> Any:
    return _run(source, lambda: _compiled_expr(source)(**scope))


def render_text(source: str, scope: dict[str, Any]) -> str:
    return str(_run(source, lambda: _compiled_text(source).render(**scope))).strip()


def render_shell(source: str, scope: dict[str, Any]) -> str:
    """Render a command template; every interpolated value is shell-quoted."""
    return str(_run(source, lambda: _compiled_shell(source).render(**scope))).strip()


def step_references(source: str, wrap: bool = True) -> set[str]:
    """Step ids named as `steps.<id>` or `steps['<id>']` in an expression or template."""
    try:
        tree = expr_env.parse("{{ (" + source + ") }}" if wrap else source)
    except TemplateError:
        return set()
    refs: set[str] = set()
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        target = node.node
        if isinstance(target, nodes.Name) and target.name == "steps":
            if isinstance(node, nodes.Getattr):
                refs.add(node.attr)
            elif isinstance(node.arg, nodes.Const):
                refs.add(str(node.arg.value))
    return refs


def holds(condition: str, match: "re.Match[str]") -> bool:
    """Whether a regex match's named groups satisfy `condition` (a signature's `when`); a condition that
    cannot be evaluated on them does not hold."""
    try:
        return bool(evaluate(condition, {k: v for k, v in match.groupdict().items() if v is not None}))
    except ExpressionError:
        return False
