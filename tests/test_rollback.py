"""Rolling a cohort back to its previous kernel (issue 43, item 2): the plan read from the node's
boot loader (real GRUB menu lines, simnode/scenarios/rollout.py), run only when approved,
printed and audited under --dry-run, undoable; the verification is the gate."""

from __future__ import annotations

import json
from pathlib import Path

from rocmdoctor.fleet.outputs.json_doc import sweep_doc
from rocmdoctor.fleet.rollback import BootFacts, boot_probe, kernel_rollback, read_boot_facts
from rocmdoctor.simnode.node import sim_transport
from rocmdoctor.simnode.scenarios.gpu_oom import healthy
from rocmdoctor.simnode.scenarios.rollout import BROKEN, PREVIOUS, kernel_update_no_dkms
from rocmdoctor.testing.cohort_fleet import fleet_results

ENTRY = ("gnulinux-advanced-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5>"
         "gnulinux-5.15.0-105-generic-advanced-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5")


def test_the_boot_loader_is_read_in_one_command_and_the_entry_id_path_found(tmp_path) -> None:
    root = kernel_update_no_dkms().materialize(tmp_path / "n")
    with sim_transport(root) as t:
        facts = read_boot_facts(t.run(boot_probe(t.root), timeout=30, mutating=False).stdout)
        assert t.round_trips == 1
    assert facts.running == BROKEN and PREVIOUS in facts.kernels and "update-grub" in facts.tools
    assert facts.grub_default == "0"
    uefi = [e for e in facts.entries if e[2] == "uefi-firmware"][0]
    assert uefi[0] == ""                      # after the submenu, but not a kernel entry inside it
    plan = kernel_rollback("n", PREVIOUS, facts, root=str(root)).plan
    assert plan is not None and plan.risk == "medium" and plan.sudo
    assert f"GRUB_DEFAULT=\"{ENTRY}\"" in plan.command and plan.command.endswith("&& update-grub")


def test_an_approved_rollback_sets_grub_default_and_the_undo_restores_it(tmp_path) -> None:
    root = kernel_update_no_dkms().materialize(tmp_path / "n")
    with sim_transport(root) as t:
        facts = read_boot_facts(t.run(boot_probe(t.root), timeout=30, mutating=False).stdout)
        plan = kernel_rollback("n", PREVIOUS, facts, root=t.root).plan
        assert t.run(plan.command, timeout=30).exit_status == 0
        grub = (root / "etc/default/grub").read_text()
        assert f'GRUB_DEFAULT="{ENTRY}"' in grub.splitlines() and "GRUB_DEFAULT=0" not in grub
        assert 'GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"' in grub           # the rest of the file kept
        assert (root / ".sim/update-grub.applied").read_text().strip() == f'GRUB_DEFAULT="{ENTRY}"'
        assert t.run(plan.rollback, timeout=30).exit_status == 0
        assert (root / "etc/default/grub").read_text().startswith("GRUB_DEFAULT=0\n")


def test_grubby_hosts_gone_kernels_and_hosts_already_back() -> None:
    rhel = BootFacts("5.14.0-503.15.1.el9_5.x86_64", ("5.14.0-427.42.1.el9_4.x86_64", "5.14.0-503.15.1.el9_5.x86_64"),
                     ("grubby",), (), None)
    p = kernel_rollback("r", "5.14.0-427.42.1.el9_4.x86_64", rhel).plan
    assert p.command == "grubby --set-default /boot/vmlinuz-5.14.0-427.42.1.el9_4.x86_64"
    assert p.rollback == "grubby --set-default /boot/vmlinuz-5.14.0-503.15.1.el9_5.x86_64"
    gone = kernel_rollback("r", "5.14.0-362.8.1.el9_3.x86_64", rhel)
    assert gone.plan is None and "/boot/vmlinuz-5.14.0-362.8.1.el9_3.x86_64 is gone" in gone.reason
    back = kernel_rollback("r", rhel.running, rhel)
    assert back.plan is None and back.reason.startswith("already runs")
    evil = kernel_rollback("r", "5.15; rm -rf /", rhel)
    assert evil.plan is None and "not a kernel release" in evil.reason


def _baseline(tmp_path: Path, name: str) -> Path:
    def old():  # the same node before the rollout: healthy on the previous kernel
        node = healthy()
        node.cmdline, node.kernel = node.cmdline.replace(node.kernel, PREVIOUS), PREVIOUS
        return node

    doc = sweep_doc(fleet_results({"old": old}, [(name, "old")], ("kernel-driver-mismatch",)))
    path = tmp_path / "before.json"
    path.write_text(json.dumps(doc))
    return path


def test_cli_dry_run_prints_and_audits_and_yes_runs(tmp_path, capsys, monkeypatch) -> None:
    import io

    from rocmdoctor.cli.main import run

    monkeypatch.setattr("sys.stdin", io.StringIO(""))          # nobody at the terminal

    base = _baseline(tmp_path, "demo:kernel-update-no-dkms")
    audit = tmp_path / "audit.log"
    argv = ["rollback", "demo:kernel-update-no-dkms", "--baseline", str(base), "--audit-log", str(audit)]
    assert run([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"demo:kernel-update-no-dkms: Boot the previous kernel {PREVIOUS} (now {BROKEN})" in out
    assert "1 host(s) would be rolled back: demo:kernel-update-no-dkms" in out
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [r.get("dry_run", False) for r in records] == [False, True]   # the read, then the echoed change
    assert "update-grub" in records[1]["command"]
    assert run([*argv, "--yes"]) == 0
    out, err = capsys.readouterr()
    assert "1 host(s) rolled back: demo:kernel-update-no-dkms" in out and "approved by --yes" in err
    assert f"rocmdoctor sweep demo:kernel-update-no-dkms --baseline {base} --gate" in out
    assert run([*argv]) == 2                     # no terminal, no --yes: declined, nothing runs
    assert "not rolled back: no answer" in capsys.readouterr().err
    assert run(["rollback", "demo:kernel-update-no-dkms", "--baseline", str(base), "--attribute", "rocm"]) == 2
    assert "only a kernel rollback is automated" in capsys.readouterr().err
