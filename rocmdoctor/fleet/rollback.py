"""Rolling a cohort back to the kernel it ran before a rollout: the plan for one host.

The gate (fleet/gate.py) names the move that broke a wave (kernel 5.15.0-105 -> 5.15.0-119); the
baseline sweep holds each host's previous kernel. Booting it again needs no package change: the
previous kernel stays installed, only the boot loader's default moves back. How depends on the
boot loader, read from the node in one read-only command:
- `grubby` (RHEL family, BLS entries): `grubby --set-default /boot/vmlinuz-PREV`;
- GRUB configured by grub-mkconfig (Debian/Ubuntu): GRUB_DEFAULT in /etc/default/grub set to the
  entry's id path (`gnulinux-advanced-UUID>gnulinux-PREV-advanced-UUID`, the ids GRUB's
  util/grub.d/10_linux.in writes, so a translated menu title does not matter), then
  update-grub; the old file is kept beside it for the undo.
Nothing here reboots: the rollback takes effect at the next boot, which on a Slurm cluster is
`scontrol reboot` of the drained nodes; the gate with `--expect kernel=PREV` verifies it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from rocmdoctor.results import RemediationPlan

#: markers between the sections of the boot probe's output
SEP = "@@rocmdoctor@@"
_SAFE = re.compile(r"^[A-Za-z0-9._+:~-]+$")       # kernel releases and GRUB entry ids we put in a command
_ENTRY = re.compile(r"^\s*(submenu|menuentry)\s+'([^']*)'.*\$menuentry_id_option\s+'([^']*)'")
BACKUP = "/etc/default/grub.rocmdoctor-rollback"


def boot_probe(root: str = "") -> str:
    """One read-only command: running kernel, /boot, boot tools, GRUB menu lines, GRUB_DEFAULT."""
    r = shlex.quote(root)
    return (f"r={r}; cat \"$r/proc/sys/kernel/osrelease\"; echo {SEP}; ls -1 \"$r/boot\" 2>/dev/null; echo {SEP}; "
            f"for c in grubby update-grub grub2-mkconfig; do command -v \"$c\"; done 2>/dev/null; echo {SEP}; "
            f"grep -hE '^[[:space:]]*(submenu|menuentry) ' \"$r/boot/grub/grub.cfg\" \"$r/boot/grub2/grub.cfg\" 2>/dev/null; "
            f"echo {SEP}; grep -E '^GRUB_DEFAULT=' \"$r/etc/default/grub\" 2>/dev/null; true")


@dataclass(frozen=True)
class BootFacts:
    running: str
    kernels: tuple[str, ...]          # releases with /boot/vmlinuz-RELEASE
    tools: tuple[str, ...]            # grubby, update-grub, grub2-mkconfig (basenames found)
    entries: tuple[tuple[str, str, str], ...]   # (submenu id or "", entry title, entry id)
    grub_default: str | None


def read_boot_facts(stdout: str) -> BootFacts:
    parts = (stdout.split(SEP) + [""] * 5)[:5]
    running = parts[0].strip()
    kernels = tuple(sorted(n[len("vmlinuz-"):] for n in parts[1].split() if n.startswith("vmlinuz-")))
    tools = tuple(p.rsplit("/", 1)[-1] for p in parts[2].split())
    entries, submenu = [], ""
    for line in parts[3].splitlines():
        m = _ENTRY.match(line)
        if not m:
            continue
        if m.group(1) == "submenu":
            submenu = m.group(3)
        else:
            # kernel entries of grub-mkconfig's advanced submenu carry "-advanced-"/"-recovery-" ids;
            # a top-level entry after the submenu (memtest, UEFI settings) is not inside it
            inside = submenu if submenu and re.search(r"-(advanced|recovery)-", m.group(3)) else ""
            entries.append((inside, m.group(2), m.group(3)))
    default = next((ln.split("=", 1)[1].strip() for ln in parts[4].splitlines() if ln.startswith("GRUB_DEFAULT=")), None)
    return BootFacts(running, kernels, tools, tuple(entries), default)


@dataclass(frozen=True)
class RollbackPlan:
    host: str
    previous: str
    current: str
    plan: RemediationPlan | None      # None: nothing to run (already there, or cannot: see reason)
    reason: str = ""
    verify: str = ""


def kernel_rollback(host: str, previous: str, facts: BootFacts, *, root: str = "", verify: str = "") -> RollbackPlan:
    """The plan that makes `previous` the default boot kernel of this host, or why there is none."""
    cur = facts.running
    if not _SAFE.match(previous or ""):
        return RollbackPlan(host, previous, cur, None, f"the baseline's kernel {previous!r} is not a kernel release")
    if cur == previous:
        return RollbackPlan(host, previous, cur, None, f"already runs {previous}: nothing to roll back", verify)
    if previous not in facts.kernels:
        return RollbackPlan(host, previous, cur, None,
                            f"/boot/vmlinuz-{previous} is gone (the package was removed): reinstall it first "
                            f"(apt install linux-image-{previous} / dnf install kernel-{previous}), then rerun")
    r = shlex.quote(root) if root else ""
    title = f"Boot the previous kernel {previous} (now {cur}) from the next boot on"
    if "grubby" in facts.tools:
        command = f"grubby --set-default {r}/boot/vmlinuz-{previous}"
        undo = f"grubby --set-default {r}/boot/vmlinuz-{cur}" if _SAFE.match(cur or "") else ""
        return RollbackPlan(host, previous, cur, _plan(title, command, undo), verify=verify)
    entry = next(((sub, eid) for sub, _, eid in facts.entries if eid.startswith(f"gnulinux-{previous}-advanced-")), None)
    if entry is None or "update-grub" not in facts.tools:
        missing = "no GRUB menu entry for it in /boot/grub/grub.cfg" if entry is None else "no update-grub"
        return RollbackPlan(host, previous, cur, None,
                            f"cannot set the default boot entry: {missing} and no grubby; boot {previous} from the "
                            "boot menu, or regenerate the menu (update-grub / grub2-mkconfig) and rerun")
    target = f"{entry[0]}>{entry[1]}" if entry[0] else entry[1]
    if not all(_SAFE.match(x) for x in target.split(">")):
        return RollbackPlan(host, previous, cur, None, f"GRUB entry id {target!r} has characters rocmdoctor will not put in a command")
    conf, backup = f"{r}/etc/default/grub", f"{r}{BACKUP}"
    line = shlex.quote(f'GRUB_DEFAULT="{target}"')
    command = (f"cp -p {conf} {backup} && {{ grep -v '^GRUB_DEFAULT=' {backup}; echo {line}; }} > {conf} && update-grub")
    undo = f"cp -p {backup} {conf} && update-grub"
    return RollbackPlan(host, previous, cur, _plan(title, command, undo), verify=verify)


def _plan(title: str, command: str, undo: str) -> RemediationPlan:
    return RemediationPlan(runbook_id="rollout", remediation_id="boot-previous-kernel", title=title, command=command,
                           risk="medium", confirm="yes", verify_check=None, rollback=undo, timeout=300.0, sudo=True)
