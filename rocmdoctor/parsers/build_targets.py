"""The GPU targets a build was told to compile for, as a ticket pastes the command or its environment.

HIP code is compiled per GPU target, and a binary carries kernels only for the targets its build named; the
runtime looks for the GPU's own target (or the one HSA_OVERRIDE_GFX_VERSION forces). Real forms:

- make/CMake variables: `make -j16 LLAMA_HIPBLAS=1 AMDGPU_TARGETS=gxf1032` (ggml-org/llama.cpp#4762, a typo that
  names no target), `cmake ... -DAMDGPU_TARGETS=gfx1100`, `-DGPU_TARGETS=gfx1100`, `GPU_ARCHS=gfx90a` (CK, vLLM),
  CMake's typed form `-DAMDGPU_TARGETS:STRING=gfx90a`;
- PyTorch's `PYTORCH_ROCM_ARCH=gfx1100`, quoted (`PYTORCH_ROCM_ARCH='gfx1151'`) or a `;` list
  (`gfx90a;gfx942;gfx950;gfx1100`);
- hipcc/clang's `--offload-arch=gfx90a:sramecc+:xnack-`, one flag per target in a compile line.

`native` (the build machine's GPU), generic targets (`gfx11-generic`) and shell references (`$GPU_TARGETS`) say
nothing checkable: a setting holding one is left out. HSA_OVERRIDE_GFX_VERSION is read beside them
(`export HSA_OVERRIDE_GFX_VERSION=10.3.0`, ollama's `HSA_OVERRIDE_GFX_VERSION:10.3.0` server config).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_SETTING = re.compile(
    r"(?<![\w-])(?:-D)?(?P<var>AMDGPU_TARGETS|GPU_TARGETS|GPU_ARCHS|PYTORCH_ROCM_ARCH|CMAKE_HIP_ARCHITECTURES)"
    r"(?::STRING)?=(?P<value>\"[^\"\n]{0,300}\"|'[^'\n]{0,300}'|[^\s`'\")]{1,300})")
_OFFLOAD = re.compile(r"--offload-arch=(?P<value>[^\s`'\",)]{1,60})")
_TARGET = re.compile(r"^gfx[0-9a-f]{3,4}(?::[a-z]+[+-])*$")
_UNJUDGED = re.compile(r"^(?:native|all|default)$|-generic$|[$%{}<>]")
_OVERRIDE = re.compile(r"HSA_OVERRIDE_GFX_VERSION[=:]\s?[\"']?(?P<v>\d{1,2}\.\d{1,2}\.\d{1,2})\b")
# a value set with `=` that is no MAJOR.MINOR.STEPPING at all (`export HSA_OVERRIDE_GFX_VERSION=gx906`, `=gfx1030`,
# `=11`): the thunk rejects it. Only a plain word: a shell expansion, a placeholder or an ollama env dump's
# `HSA_OVERRIDE_GFX_VERSION:` (empty = unset) is not read as a value.
_OVERRIDE_WORD = re.compile(r"(?<![\w$])HSA_OVERRIDE_GFX_VERSION=[\"']?(?P<v>[A-Za-z0-9][A-Za-z0-9._+-]{0,19})(?=[\"'\s`]|$)")


def _items(value: str) -> list[str]:
    return [v for v in re.split(r"[;,\s]+", value.strip("\"'")) if v]


@parser("build_targets")
def parse_build_targets(text: str) -> dict[str, Any]:
    """`{settings: [{var, value, targets, invalid, lineno, line}], targets: [...], invalid: [...], override:
    {value, lineno, line} | None}`: each build-target setting with its valid targets (feature suffixes dropped:
    gfx90a:xnack- -> gfx90a) and the items that name no target (a typo), a compile line's --offload-arch flags
    as one setting; `targets` and `invalid` over all of them."""
    settings: list[dict[str, Any]] = []
    override = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw[:4000]
        found = [(m.group("var"), m.group("value")) for m in _SETTING.finditer(line)] if "=" in line else []
        arches = [m.group("value") for m in _OFFLOAD.finditer(line)] if "--offload-arch=" in line else []
        if arches:
            found.append(("--offload-arch", " ".join(arches)))
        for var, value in found:
            items = _items(value)
            if not items or any(_UNJUDGED.search(i) for i in items):
                continue
            targets = sorted({i.split(":")[0] for i in items if _TARGET.match(i)})
            invalid = [i for i in items if not _TARGET.match(i)]
            settings.append({"var": var, "value": value.strip("\"'"), "targets": targets, "invalid": invalid,
                             "lineno": lineno, "line": line.strip()[:300]})
        if override is None and "HSA_OVERRIDE_GFX_VERSION" in line and (
                m := _OVERRIDE.search(line) or _OVERRIDE_WORD.search(line)):
            override = {"value": m.group("v"), "lineno": lineno, "line": line.strip()[:300]}
    return {"settings": settings, "targets": sorted({t for s in settings for t in s["targets"]}),
            "invalid": [i for s in settings for i in s["invalid"]], "override": override}
