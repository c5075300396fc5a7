"""Mask secrets before evidence leaves the node in a bundle.

Environment values and `NAME=value` / `--name value` pairs whose names look
secret (token, password, secret, key, credential, ...) are replaced by
`********`. Masking is by name, so it is predictable: what is masked is
listed in the manifest, and `--no-redact` keeps everything.
"""

from __future__ import annotations

import re

MASK = "********"
_NAME = r"[A-Za-z0-9_.-]*(?:token|passw(?:or)?d|passwd|secret|credential|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|(?<![a-z])key)[A-Za-z0-9_.-]*"
SECRET_NAME = re.compile(rf"^{_NAME}$", re.IGNORECASE)
# NAME=value, NAME: value, "NAME": "value"  (values stop at white space, quotes and commas)
_PAIR = re.compile(rf"""(?P<k>["']?\b{_NAME}["']?)(?P<sep>\s*[=:]\s*)(?P<q>["']?)(?P<v>[^\s"',;]+)""", re.IGNORECASE)
# --name value / --name=value on command lines
_FLAG = re.compile(rf"(?P<k>--{_NAME})(?P<sep>=|\s+)(?P<v>[^\s\"',;-][^\s\"',;]*)", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.match(name))


def redact_text(text: str) -> tuple[str, int]:
    """The text with secret values masked, and how many were masked."""
    count = 0

    def pair(m: re.Match[str]) -> str:
        nonlocal count
        if m.group("v") == MASK:
            return m.group(0)
        count += 1
        return f"{m.group('k')}{m.group('sep')}{m.group('q')}{MASK}"

    def flag(m: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"{m.group('k')}{m.group('sep')}{MASK}"

    text = _FLAG.sub(flag, text)
    text = _PAIR.sub(pair, text)
    return text, count
