"""Active validation: run AMD's ROCm Validation Suite at a level and read its verdicts (issue 42).

Passive triage reads what a node says; a GPU that computes wrong numbers or under-delivers says
nothing. `validate` runs RVS's own predefined levels (`rvs -r N`: per-model configurations under
conf/<MODEL>/levels/, tests/fixtures/outputs/rvs/SOURCES.md lists what each runs and for how long)
rather than home-made kernels, with the thresholds RVS's configurations carry (gst's target
GFLOPS per model). It loads every GPU, so it is treated like a remediation: refused while a
process holds a GPU (unless forced, with the reason recorded), shown and approved before it runs,
audit-logged, echoed under --dry-run, and stopped by a timeout.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from rocmdoctor.engine.triage import Approver
from rocmdoctor.results import RemediationPlan
from rocmdoctor.status import ExitStatus, State, exit_status_for
from rocmdoctor.transports.base import Transport


@dataclass(frozen=True)
class Level:
    rvs_level: int
    budget_s: float          # the timeout that stops rvs
    about: str
    runs: str


#: our level -> RVS's (its MI300X level files: level 1 there is package checks only)
LEVELS: dict[int, Level] = {
    1: Level(2, 900, "1-3 minutes",
             "PCIe capability (peqt), HBM bandwidth basic (babel), XGMI and PCIe host-to-device bandwidth 20 s each (pbqt, pebb)"),
    2: Level(3, 2400, "5-15 minutes",
             "HBM bandwidth (babel), PCIe both ways and XGMI bidirectional 30 s each, GEMM fp8/fp16/bf16 against the model's "
             "GFLOPS targets 10 s each (gst)"),
    3: Level(4, 7200, "30-60 minutes",
             "level 2 with the full HBM set, a 500-pass memory test (mem), fp32/fp64 GEMM and a 10-minute power stress (iet): burn-in"),
}
SEP = "@@rocmdoctor@@"


@dataclass(frozen=True)
class ValidateResult:
    host: str
    level: int
    state: State
    message: str
    command: str = ""
    forced: str = ""
    busy_pids: tuple[int, ...] = ()
    evidence: tuple[str, ...] = ()
    actions: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    duration_s: float = 0.0
    figures: dict[str, float] = field(default_factory=dict)   # what --save-baseline records
    parts: tuple[dict[str, str], ...] = ()   # the checks after RVS: {name, module, state, message}

    @property
    def exit_status(self) -> ExitStatus:
        return exit_status_for(self.state)

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.host, "level": self.level, "rvs_level": LEVELS[self.level].rvs_level,
                "state": self.state.value, "exit_status": int(self.exit_status), "message": self.message,
                "command": self.command, "forced": self.forced, "busy_pids": list(self.busy_pids),
                "evidence": list(self.evidence), "actions": list(self.actions), "duration_s": round(self.duration_s, 1),
                "figures": dict(self.figures), "parts": list(self.parts)}


#: a GPU-to-GPU link under this share of the median of its node's links is slow (WARN), under
#: SLOW_FAIL broken (FAIL): relative to the node's own links, no bandwidth figure is hard-coded
SLOW_WARN, SLOW_FAIL = 0.85, 0.5
TB_BUDGET_S = 600.0
TB_MARK = "@@rocmdoctor-transferbench@@"


def _which(tool: str) -> str:
    return f"command -v {tool} 2>/dev/null || {{ [ -x /opt/rocm/bin/{tool} ] && echo /opt/rocm/bin/{tool}; }}; echo"


def preflight_command(root: str = "") -> str:
    """One read-only command: the processes holding a GPU (KFD's list), where rvs, TransferBench and
    hipblaslt-bench are, the AMD GPUs on the PCI bus, and each KFD GPU node's target and SIMD count."""
    r = shlex.quote(root)
    return (f"r={r}; ls \"$r/sys/class/kfd/kfd/proc\" 2>/dev/null; echo {SEP}; {_which('rvs')}; echo {SEP}; "
            f"{_which('TransferBench')}; echo {SEP}; {_which('hipblaslt-bench')}; echo {SEP}; "
            f"for d in \"$r\"/sys/bus/pci/devices/*; do [ \"$(cat \"$d/vendor\" 2>/dev/null)\" = 0x1002 ] || continue; "
            f"case \"$(cat \"$d/class\" 2>/dev/null)\" in 0x03*|0x12*) echo \"${{d##*/}}\";; esac; done; echo {SEP}; "
            f"for n in \"$r\"/sys/class/kfd/kfd/topology/nodes/*; do grep -q '^simd_count [1-9]' \"$n/properties\" 2>/dev/null "
            f"|| continue; echo \"${{n##*/}} $(grep -E '^(gfx_target_version|simd_count) ' \"$n/properties\" | tr '\\n' ' ')\"; "
            f"done; true")


@dataclass(frozen=True)
class Preflight:
    pids: tuple[int, ...]
    rvs: str
    transferbench: str
    gemm_bench: str
    pci_gpus: tuple[str, ...]                       # AMD display/accelerator functions on the bus
    kfd_gpus: tuple[tuple[str, int, int], ...]      # KFD GPU nodes: (node, gfx_target_version, simd_count)

    @property
    def gpus(self) -> int:
        return len(self.kfd_gpus)


def read_preflight(stdout: str) -> Preflight:
    parts = (stdout.split(SEP) + [""] * 6)[:6]
    pids = tuple(sorted(int(p) for p in parts[0].split() if p.isdigit()))

    def first(text: str) -> str:
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
        return lines[0].strip() if lines else ""
    nodes = []
    for line in parts[5].strip().splitlines():
        words = line.split()
        props = dict(zip(words[1::2], words[2::2]))
        if words and all(v.isdigit() for v in props.values()):
            nodes.append((words[0], int(props.get("gfx_target_version", 0)), int(props.get("simd_count", 0))))
    return Preflight(pids, first(parts[1]), first(parts[2]), first(parts[3]),
                     tuple(ln.strip() for ln in parts[4].strip().splitlines() if ln.strip()), tuple(nodes))


def judge_enumeration(pf: Preflight, host: str = "HOST") -> tuple[State, str, tuple[str, ...]]:
    """The GPUs the bus has against those KFD enumerates, and GPUs of one target with fewer SIMDs
    than their siblings (compute units disabled or harvested): before any load, from sysfs alone."""
    evidence = [f"PCI: {len(pf.pci_gpus)} AMD GPU function(s): {', '.join(pf.pci_gpus) or 'none'}",
                "KFD: " + (", ".join(f"node {n} gfx_target_version {t} simd_count {c}" for n, t, c in pf.kfd_gpus) or "no GPU node")]
    if pf.pci_gpus and len(pf.kfd_gpus) < len(pf.pci_gpus):
        return (State.FAIL, f"KFD enumerates {len(pf.kfd_gpus)} GPU(s) of the {len(pf.pci_gpus)} on the PCI bus: "
                f"`rocmdoctor triage {host} -r gpu-not-visible` names the missing one", tuple(evidence))
    odd = []
    for target in sorted({t for _, t, _ in pf.kfd_gpus}):
        same = [(n, c) for n, t, c in pf.kfd_gpus if t == target]
        usual = max({c for _, c in same}, key=lambda c: sum(1 for _, x in same if x == c))
        odd += [f"node {n} ({c} SIMDs, its {len(same) - 1} sibling(s) of gfx_target_version {target}: {usual})"
                for n, c in same if c < usual]
    if odd:
        return State.WARN, "GPU(s) with fewer compute units than their siblings: " + "; ".join(odd[:4]), tuple(evidence)
    if not pf.kfd_gpus:
        return State.UNKNOWN, "no KFD GPU node to enumerate", tuple(evidence)
    return (State.PASS, f"{len(pf.kfd_gpus)} GPU(s) enumerated by KFD, as on the PCI bus, each with its siblings' SIMD count",
            ())


def plan(level: int, rvs: str, transferbench: str = "", gemm_bench: str = "", gpus: int = 0) -> RemediationPlan:
    from rocmdoctor.engine.validate_figures import GEMM_BUDGET_S, GEMM_SIZE, gemm_command

    lv = LEVELS[level]
    command = f"{shlex.quote(rvs)} -r {lv.rvs_level}"
    runs, timeout = lv.runs, lv.budget_s
    if transferbench and level <= 2:
        command += f"; echo {TB_MARK}; {shlex.quote(transferbench)} p2p"
        runs += "; then TransferBench p2p (copy bandwidth of every GPU pair)"
        timeout += TB_BUDGET_S
    if gemm_bench and gpus and level >= 2:
        command += f"; {gemm_command(gemm_bench, gpus)}"
        runs += f"; then an f32 GEMM ({GEMM_SIZE}^3) on each of the {gpus} GPUs checked against the CPU (hipblaslt-bench -v)"
        timeout += GEMM_BUDGET_S * gpus
    return RemediationPlan(runbook_id="validate", remediation_id=f"level-{level}",
                           title=f"Validate the GPUs, level {level} (RVS level {lv.rvs_level}, {lv.about}): {runs}",
                           command=command, risk="medium", confirm="yes", verify_check=None, rollback="",
                           timeout=timeout, sudo=False)


def judge_links(stdout: str) -> tuple[State, str, tuple[str, ...], dict[str, float]]:
    """TransferBench p2p: GPU-to-GPU links far under the median of the node's own links; and every
    link's figure (what --save-baseline records), from the one parse."""
    import statistics

    from rocmdoctor.parsers import ParseError
    from rocmdoctor.parsers.transferbench import parse_transferbench_p2p

    try:
        every = parse_transferbench_p2p(stdout)["links"]
    except ParseError as exc:
        return State.UNKNOWN, f"TransferBench p2p: {exc}", (), {}
    figures = {f"link {x['src']} -> {x['dst']} GB/s": x["gbps"] for x in every}
    links = [x for x in every if x["src"].startswith("GPU") and x["dst"].startswith("GPU")]
    if len(links) < 2:
        return State.SKIPPED, "TransferBench p2p: fewer than two GPUs", (), figures
    median = statistics.median(x["gbps"] for x in links)
    slow = sorted((x for x in links if x["gbps"] < SLOW_WARN * median), key=lambda x: x["gbps"])
    if not slow:
        return (State.PASS, f"{len(links)} GPU-to-GPU links within {int(SLOW_WARN * 100)} % of their median {median:.2f} GB/s",
                (), figures)
    state = State.FAIL if slow[0]["gbps"] < SLOW_FAIL * median else State.WARN
    text = "; ".join(f"{x['src']} -> {x['dst']} {x['gbps']:.2f} GB/s ({x['gbps'] / median:.0%} of the median {median:.2f})"
                     for x in slow[:4])
    return state, f"slow GPU-to-GPU link(s): {text}", tuple(x["line"] for x in slow[:4]), figures


def judge(stdout: str) -> tuple[State, str, tuple[str, ...], tuple[dict[str, Any], ...]]:
    from rocmdoctor.parsers.rvs import parse_rvs_output

    out = parse_rvs_output(stdout)
    failed = [v for v in out["verdicts"] if not v["passed"]] + [a for a in out["actions"] if not a["passed"]]
    actions = tuple({"action": a["action"], "module": a["module"], "passed": a["passed"]} for a in out["actions"])
    if failed:
        gpus = sorted({v["gpu"] for v in out["verdicts"] if not v["passed"] and v["gpu"]})
        names = sorted({f["action"] for f in failed if f.get("action")})
        return (State.FAIL, f"RVS failed {', '.join(names) or 'a test'}" + (f" on GPU id(s) {', '.join(gpus)}" if gpus else ""),
                tuple(f["line"] for f in failed[:12]), actions)
    if out["verdicts"] or out["actions"]:
        return (State.PASS, f"RVS passed {len(out['actions']) or len(out['verdicts'])} "
                            f"{'action(s)' if out['actions'] else 'GPU verdict(s)'}",
                tuple(a["line"] for a in out["actions"][:12]) or tuple(v["line"] for v in out["verdicts"][:12]), actions)
    return State.UNKNOWN, "RVS printed no result (no pass/met verdict, no summary)", (), ()


def run_validate(t: Transport, level: int, approve: Approver, *, force: str = "",
                 on_event: Callable[[Any], None] | None = None,
                 baseline: tuple[str, dict[str, float]] | None = None) -> ValidateResult:
    """Preflight, plan, approval, run, verdict; every decision and run goes to `on_event` (the incident
    journal), the verdict as a note the postmortem quotes. `baseline` is (its name, its figures)."""
    from rocmdoctor.engine.events import NoteAdded

    emit = on_event or (lambda e: None)
    result = _run_validate(t, level, approve, force, emit, baseline)
    lines = [f"validate level {level}: {result.state.value.upper()}: {result.message}",
             *(f"  {e}" for e in result.evidence)]
    emit(NoteAdded(host=result.host, text="\n".join(lines), author="rocmdoctor validate"))
    return result


def _run_validate(t: Transport, level: int, approve: Approver, force: str, emit: Callable[[Any], None],
                  baseline: tuple[str, dict[str, float]] | None) -> ValidateResult:
    from rocmdoctor.engine.events import RemediationDecided, RemediationRan

    host = t.host
    pre = t.run(preflight_command(t.root), timeout=30, mutating=False, audit_note="validate: preflight")
    pf = read_preflight(pre.stdout)
    pids = pf.pids
    if not pf.rvs:
        return ValidateResult(host, level, State.UNKNOWN, "rvs (ROCm Validation Suite) is not installed: install the "
                              "rocm-validation-suite package (apt/dnf install rocm-validation-suite), then rerun")
    if pids and not force:
        return ValidateResult(host, level, State.UNKNOWN,
                              f"refused: {len(pids)} process(es) hold a GPU (PID {', '.join(map(str, pids[:8]))}); "
                              "drain the node first, or --force REASON", busy_pids=pids)
    p = plan(level, pf.rvs, pf.transferbench, pf.gemm_bench, pf.gpus)
    enumeration = judge_enumeration(pf, host)
    if t.dry_run:
        t.run(p.command, timeout=p.timeout, mutating=True, audit_note=f"validate level {level} (dry run)")
        return ValidateResult(host, level, State.SKIPPED, f"dry run: would run `{p.command}` ({LEVELS[level].about}; "
                              f"stopped after {p.timeout / 60:.0f} min); enumeration now: {enumeration[1]}",
                              command=p.command, forced=force, busy_pids=pids)
    decision = approve(p, host)
    emit(RemediationDecided(host=host, plan=p, approved=decision.approved, by=decision.by, reason=decision.reason))
    if not decision.approved:
        return ValidateResult(host, level, State.UNKNOWN, f"not run: {decision.reason}", command=p.command)
    note = f"validate level {level} approved by {decision.by}" + (f"; forced over PID(s) {list(pids)}: {force}" if pids else "")
    start = time.monotonic()
    res = t.run(p.command, timeout=p.timeout, mutating=True, audit_note=note)
    took = time.monotonic() - start
    emit(RemediationRan(host=host, plan=p, result=res))
    if res.timed_out:
        from rocmdoctor.engine.validate_figures import GEMM_MARK

        tools = "rvs" if TB_MARK not in p.command and GEMM_MARK not in p.command else "the validation (rvs and the tools after it)"
        return ValidateResult(host, level, State.UNKNOWN, f"{tools} did not finish within {p.timeout:.0f} s and was stopped",
                              command=p.command, forced=force, duration_s=took)
    return _verdict(host, level, p.command, force, pids, took, res, baseline, enumeration)


def _verdict(host: str, level: int, command: str, force: str, pids: tuple[int, ...], took: float, res: Any,
             baseline: tuple[str, dict[str, float]] | None,
             enumeration: tuple[State, str, tuple[str, ...]] | None = None) -> ValidateResult:
    """RVS's verdicts, then TransferBench's links, the GEMM check and the baseline: the worst wins,
    each part's message and evidence kept."""
    from rocmdoctor.engine.validate_figures import GEMM_MARK, compare_baseline, judge_gemm

    before_gemm, gemm_marked, gemm_rest = res.stdout.partition(GEMM_MARK)
    rvs_out, tb_marked, tb_out = before_gemm.partition(TB_MARK)
    state, message, evidence, actions = judge(rvs_out)
    if state == State.UNKNOWN and res.exit_status and not (tb_marked or gemm_marked):
        tail = (res.stderr or res.stdout).strip().splitlines()[-1:] or ["no output"]
        message = f"rvs exited {res.exit_status} without a result: {tail[0]}"
    parts: list[tuple[str, str, tuple[State, str, tuple[str, ...]]]] = []
    if enumeration is not None and enumeration[0] != State.PASS:
        parts.append(("enumeration", "sysfs", enumeration))
    figures: dict[str, float] = {}
    if tb_marked:
        l_state, l_message, l_evidence, l_figures = judge_links(tb_out)
        parts.append(("p2p", "transferbench", (l_state, l_message, l_evidence)))
        figures.update(l_figures)
    elif level <= 2:
        message += "; TransferBench not installed: per-link bandwidth not measured"
    if gemm_marked:
        g_state, g_message, g_evidence, g_figures = judge_gemm(GEMM_MARK + gemm_rest)
        parts.append(("gemm-verify", "hipblaslt-bench", (g_state, g_message, g_evidence)))
        figures.update(g_figures)
    elif level >= 2:
        message += "; hipblaslt-bench (hipBLASLt's benchmark client) not installed: GEMM results not checked"
    if baseline is not None:
        parts.append(("baseline", "baseline", compare_baseline(figures, baseline[1], baseline[0])))
    for _, _, (p_state, p_message, p_evidence) in parts:
        if p_state.severity > state.severity:
            state = p_state
        message, evidence = f"{message}; {p_message}", evidence + p_evidence
    summary = tuple({"name": n, "module": m, "state": st.value, "message": msg, "evidence": "\n".join(ev)}
                    for n, m, (st, msg, ev) in parts)
    return ValidateResult(host, level, state, message, command, force, pids, evidence, actions, took, figures, summary)
