"""YAML loading that remembers line numbers, so every error names file:line."""

from __future__ import annotations

from typing import Any

import yaml

from rocmdoctor.errors import DefinitionError

try:
    _Base = yaml.CSafeLoader  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Base = yaml.SafeLoader  # type: ignore[misc]


class LineDict(dict):  # type: ignore[type-arg]
    """A mapping that knows its own line and the line of each key (1-based)."""

    line: int = 0
    key_lines: dict[str, int]


class LineList(list):  # type: ignore[type-arg]
    line: int = 0
    item_lines: list[int]


class _Loader(_Base):  # type: ignore[misc, valid-type]
    pass


def _mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    out = LineDict()
    out.line = node.start_mark.line + 1
    out.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            key = str(key)
        if key in out:
            raise DefinitionError(getattr(loader, "name", "<yaml>"), key_node.start_mark.line + 1,
                                  f"duplicate key '{key}'", "each key may appear once per mapping")
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = key_node.start_mark.line + 1
    return out


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    out = LineList(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.item_lines = [child.start_mark.line + 1 for child in node.value]
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


def load_yaml(text: str, path: str) -> Any:
    loader = _Loader(text)
    loader.name = path
    try:
        return loader.get_single_data()
    except DefinitionError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or str(exc)
        raise DefinitionError(path, line, f"not valid YAML: {problem}",
                              "check indentation and quoting near that line") from None
    except yaml.YAMLError as exc:
        raise DefinitionError(path, None, f"not valid YAML: {exc}") from None
    finally:
        loader.dispose()


def line_of(obj: Any, key: str | None = None, default: int | None = None) -> int | None:
    if isinstance(obj, LineDict):
        if key is not None and key in obj.key_lines:
            return obj.key_lines[key]
        return obj.line or default
    if isinstance(obj, LineList):
        return obj.line or default
    return default
