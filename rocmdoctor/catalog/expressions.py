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
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import StrictUndefined, nodes
from jinja2.environment import TemplateExpression
from jinja2.exceptions import TemplateError, TemplateSyntaxError
from jinja2.parser import Parser
from jinja2.sandbox import ImmutableSandboxedEnvironment

from rocmdoctor.catalog.filters import VALUE_FILTERS
from rocmdoctor.errors import ExpressionError  # noqa: F401  (raised here; defined light for the compiler)


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


FILTERS = {
    **VALUE_FILTERS,
    "select_expr": _select_expr,
    "map_expr": _map_expr,
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
