"""GPU visibility assignments a ticket pastes: `env`/`printenv` lines (`ROCR_VISIBLE_DEVICES=1`), a
shell's `export`/`declare -x` forms and quoted values (`CUDA_VISIBLE_DEVICES="0,1"`, as a job's or
Ray worker's environment dump prints them; vllm-project/vllm#21457's paste), after a shell prompt too. Only the variables
that select GPUs are read; the last assignment of each wins, as in a shell.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser
from rocmdoctor.parsers.containers import GPU_VISIBILITY_ENV

# a shell prompt before the command is kept out ("$ export ...", "user@host:~$ export ...": the paste of
# a session, mcmonkeyprojects/SwarmUI#566)
_LINE = re.compile(r"^\s*(?:[^\s=]*[$#]\s+)?(?:export\s+|declare\s+-x\s+)?(?P<name>" + "|".join(GPU_VISIBILITY_ENV)
                   + r""")=(?P<q>["']?)(?P<value>[^"'\s]*)(?P=q)\s*$""")


@parser("env_lines")
def parse_env_lines(text: str) -> dict[str, Any]:
    """`{vars: {NAME: value}, lines: {NAME: (lineno, line)}}` of the visibility variables assigned."""
    found: dict[str, str] = {}
    where: dict[str, tuple[int, str]] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        m = _LINE.match(raw)
        if m:
            found[m.group("name")] = m.group("value")
            where[m.group("name")] = (lineno, raw.strip())
    return {"vars": found, "lines": where}
