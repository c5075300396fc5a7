"""A postmortem draft rendered from an incident journal.

The on-call engineer should end an incident with a draft, not a blank page:
everything the journal knows (hosts, timeline, failed checks with their
evidence, diagnoses, what was run and whether its verify check passed, the
runbooks' follow-ups) is filled in; what only a person can know (customer
impact, lessons) is left as `TODO(human)`. Sections follow the union of the
Google SRE, PagerDuty and Atlassian templates (docs/postmortem-sample.md).

The template sees plain dicts and lists (see `build_context`), so a site
template (`--template FILE`) does not depend on rocmdoctor's classes.
Rendering uses StrictUndefined: a typo in a template is an error naming the
template line, never a silently empty section.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from rocmdoctor.errors import RocmdoctorError
from rocmdoctor.incident.journal import JournalContents
from rocmdoctor.incident.postmortem_context import build_context

TODO = "TODO(human)"
BUILTIN_TEMPLATE = "postmortem.md.j2"


def utc(value: str, fmt: str = "%Y-%m-%d %H:%M:%S") -> str:
    """ISO timestamp -> '2025-05-06 14:03:07' (UTC); unparseable values pass through."""
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).strftime(fmt)
    except (ValueError, AttributeError):
        return str(value)


def code(value: Any) -> str:
    """An inline code span that survives backticks inside the value."""
    text = " ".join(str(value).split("\n"))
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def cell(value: Any) -> str:
    """Safe inside a Markdown table cell: no newline, no bare pipe."""
    return " ".join(str(value).split()).replace("|", "\\|")


def block(value: Any, lang: str = "text") -> str:
    """A fenced code block long enough to hold any backtick runs in the value."""
    text = str(value).rstrip("\n")
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text}\n{fence}"


def _environment(loader: Any) -> Any:
    import jinja2

    env = jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, autoescape=False,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(utc=utc, code=code, cell=cell, block=block)
    env.globals["TODO"] = TODO
    return env


def render_postmortem(contents: JournalContents, template: str | os.PathLike[str] | None = None) -> str:
    import jinja2

    context = build_context(contents)
    try:
        if template:
            path = Path(template)
            if not path.is_file():
                raise RocmdoctorError(f"--template {path}: no such file",
                                      "pass a Jinja2 Markdown template; the built-in one is "
                                      "rocmdoctor/incident/templates/postmortem.md.j2")
            env = _environment(jinja2.FileSystemLoader(str(path.parent)))
            tpl = env.get_template(path.name)
        else:
            env = _environment(jinja2.PackageLoader("rocmdoctor.incident", "templates"))
            tpl = env.get_template(BUILTIN_TEMPLATE)
        return tpl.render(**context)
    except jinja2.TemplateSyntaxError as exc:
        raise RocmdoctorError(f"{exc.filename or template}:{exc.lineno}: template syntax error: {exc.message}",
                              "fix the template (Jinja2 syntax)") from None
    except jinja2.UndefinedError as exc:
        raise RocmdoctorError(f"{_template_line(exc, template)}: {exc.message}",
                              "names available to a template: " + ", ".join(sorted(context))) from None


def _template_line(exc: BaseException, template: str | os.PathLike[str] | None) -> str:
    """Find the template line of an error raised while rendering (from the traceback)."""
    name = str(template) if template else BUILTIN_TEMPLATE
    tb = exc.__traceback__
    line = None
    while tb is not None:
        fname = tb.tb_frame.f_code.co_filename
        if fname.endswith(Path(name).name):
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"{name}:{line}" if line else name


def write_postmortem(contents: JournalContents, output: str | os.PathLike[str] | None = None,
                     template: str | os.PathLike[str] | None = None) -> Path:
    """Render and write; default path: `postmortem.md` beside the journal."""
    text = render_postmortem(contents, template)
    path = Path(output) if output else contents.path.parent / "postmortem.md"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise RocmdoctorError(f"{path}: cannot write the postmortem ({exc.strerror or exc})",
                              "choose another file with -o FILE") from None
    return path
