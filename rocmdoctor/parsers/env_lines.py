"""GPU visibility assignments a ticket pastes: `env`/`printenv` lines (`ROCR_VISIBLE_DEVICES=1`), a
shell's `export`/`declare -x` forms, assignments before a command, and quoted values (`CUDA_VISIBLE_DEVICES="0,1"`, as a job's or
Ray worker's environment dump prints them; vllm-project/vllm#21457's paste), after a shell prompt too. Only the variables
that select GPUs are read; the last assignment of each wins, as in a shell.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser
from rocmdoctor.parsers.containers import GPU_VISIBILITY_ENV

# a shell prompt before the command is kept out ("$ export ...", "user@host:~$ export ...": the paste of
# a session, mcmonkeyprojects/SwarmUI#566; fish's "user@host ~> ", JuliaGPU/AMDGPU.jl#420)
_PROMPT = r"(?:[^\s=]*[$#>%]\s+|[^\s=]+\s+[^\s=]*[$#>%]\s+)?"
# `env` output, `export`/`declare -x`, or assignments before a command (`HIP_VISIBLE_DEVICES=-1 julia ...`,
# `env A=1 cmd`): a shell gives that command those values
_LINE = re.compile(r"^\s*" + _PROMPT + r"""(?:export\s+|declare\s+-x\s+|env\s+)?(?P<assigns>(?:[A-Za-z_]\w{0,60}=(?:"[^"]*"|'[^']*'|[^\s"']*)(?:\s+|$))+)""")
_ASSIGN = re.compile(r"""(?P<name>[A-Za-z_]\w{0,60})=(?P<q>["']?)(?P<value>[^"'\s]*)(?P=q)""")
_GPU_VARS = frozenset(GPU_VISIBILITY_ENV)


def shell_assignments(text: str, names: frozenset[str]) -> tuple[dict[str, str], dict[str, tuple[int, str]]]:
    """({NAME: value}, {NAME: (lineno, line)}) for the variables in `names` the text assigns in a shell's forms;
    the last assignment of each wins."""
    found: dict[str, str] = {}
    where: dict[str, tuple[int, str]] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        m = _LINE.match(raw)
        for a in _ASSIGN.finditer(m.group("assigns")) if m else ():
            if a.group("name") in names:
                found[a.group("name")] = a.group("value")
                where[a.group("name")] = (lineno, raw.strip())
    return found, where


@parser("env_lines")
def parse_env_lines(text: str) -> dict[str, Any]:
    """`{vars: {NAME: value}, lines: {NAME: (lineno, line)}}` of the visibility variables assigned."""
    found, where = shell_assignments(text, _GPU_VARS)
    return {"vars": found, "lines": where}
