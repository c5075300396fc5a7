"""A job's log (`--log FILE`): the ROCm runtime's own reports of a GPU that failed under the job.

ROCr prints two lines to the process's stderr before it aborts, each naming the KFD topology
node of the GPU (`/sys/class/kfd/kfd/topology/nodes/<N>`, CPU nodes first):

- `HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang` (runtime.cpp's
  HwExceptionHandler: `"HW Exception by GPU node-%u (Agent handle: %p) reason :%s\\n"`); real lines:
  ROCm/ROCm#5259, #5443, #2196, ROCm/legacy-rocm-build#4414. Its other reason, "ECC", is in the
  source but in no public log found, so it is not read;
- `Memory access fault by GPU node-1 (Agent handle: 0x556e9b7e3360) on address 0x7f52c3f5f000.
  Reason: Page not present or supervisor privilege.` (VMFaultHandler; ROCm/ROCm#5443, where a
  progress bar shares the line, so the report is searched for, not anchored).

Both repeat once per queue of the process, so a job with four queues on the hung GPU prints the
hang line four times.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

# a quote retyped in a ticket moves the colon ("reason: GPU Hang", nbramia/LifeOS#55); the words are ROCr's.
# ROCr prints the handle and the address with printf's %p: glibc writes a null pointer as "(nil)"
# (ROCm/tensorflow-upstream#180: "... on address (nil). Reason: Page not present"); a poster may blank them
# out as "0x..." (ORNL/HeCBench#173)
_POINTER = r"0x[0-9a-fA-F]{1,16}|\(nil\)|(?:0x)?\.{2,8}"
_HANG = re.compile(r"HW Exception by GPU node-(?P<node>\d+) (?:\(Agent handle: (?P<handle>" + _POINTER + r")\) )?"
                   r"reason ?: ?(?P<reason>GPU Hang)")
_FAULT = re.compile(r"Memory access fault by GPU node-(?P<node>\d+) (?:\(Agent handle: (?P<handle>" + _POINTER + r")\) )?"
                    r"on address (?P<address>" + _POINTER + r")\.?\s{1,3}Reason: (?P<reason>[^.\n]{1,120})")


@parser("hsa_runtime_events")
def parse_hsa_runtime_events(text: str) -> dict[str, Any]:
    """The runtime's GPU-hang and memory-access-fault reports in a job log.

    Returns `{found, hangs: [{node, reason, handle, lineno, line}], faults: [{node, address,
    reason, handle, lineno, line}]}`; `node` is an int, `line` the report itself (from its first
    word, without what the job printed before it on the same line). A log without either report
    gives `found: False` (most job logs: not an error).
    """
    hangs: list[dict[str, Any]] = []
    faults: list[dict[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if "by GPU node-" not in line:
            continue
        for rx, into in ((_HANG, hangs), (_FAULT, faults)):
            m = rx.search(line)
            if m:
                event = {k: v for k, v in m.groupdict().items() if v is not None}
                event.update(node=int(m.group("node")), lineno=lineno, line=line[m.start():].rstrip())
                into.append(event)
    return {"found": bool(hangs or faults), "hangs": hangs, "faults": faults}
