"""The previous boot found in rsyslog's kernel lines, on a real kern.log that a crash cut short.

tests/fixtures/outputs/kernel-log/kern-log-crash-nul.log is Requiem4Eternity/Appstream#79 verbatim
(its NUL run in the paste's `^@` form); the live file has the bytes themselves.
"""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.syslog_boots import parse_syslog_previous_boot

CRASHED = (Path(__file__).resolve().parents[2] / "tests/fixtures/outputs/kernel-log/kern-log-crash-nul.log").read_text()
# the kernel's banner as rsyslog writes it on a RHEL-family node (no kernel stamp) and on Ubuntu
# (kernel stamp): init/version.c linux_banner; the banner text of server1.example.local's
# `journalctl -k`, whose short form is rsyslog's traditional file format
RHEL_BANNER = ("Oct 02 09:50:11 server1.example.local kernel: Linux version 4.18.0-193.19.1.el8_2.x86_64 "
               "(mockbuild@kbuilder.bsys.centos.org) (gcc version 8.3.1 20191121 (Red Hat 8.3.1-5) (GCC)) "
               "#1 SMP Mon Sep 14 14:37:00 UTC 2020")
DAEMON = "Jun 06 12:01:22 k8snode232 systemd-networkd[489]: enP2p233s0f0: Configured"  # Appstream#96


def test_a_paste_cut_by_the_crash_is_the_previous_boot() -> None:
    out = parse_syslog_previous_boot(CRASHED)
    assert out["found"] and out["boundary"] == "nul" and out["abrupt_end"] is True
    assert out["release"] is None
    kinds = [(e["kind"], e["text"]) for e in out["events"]]
    assert kinds == [("reset_failed", "[drm] psp is not working correctly before mode1 reset!")]
    assert out["events"][0]["line"].startswith("May  7 17:21:09 k8snode kernel: [ 8265.905347] ")


def test_nul_bytes_then_the_next_banner_are_one_boundary() -> None:
    text = CRASHED.replace("^@", "\x00").rstrip("\n") + RHEL_BANNER + "\n" + DAEMON + "\n"
    out = parse_syslog_previous_boot(text)
    assert out["found"] and out["boundary"] == "banner" and out["abrupt_end"] is True
    assert out["release"] == "4.18.0-193.19.1.el8_2.x86_64"
    assert [e["kind"] for e in out["events"]] == ["reset_failed"]


def test_only_the_boot_between_the_last_two_banners_counts() -> None:
    older = CRASHED.split("\n^@")[0] + "\n"                    # a fault two boots ago
    clean = "Oct 02 10:00:00 server1.example.local kernel: [drm] amdgpu kernel modesetting enabled.\n"
    text = older + RHEL_BANNER + "\n" + clean + DAEMON + "\n" + RHEL_BANNER + "\n"
    out = parse_syslog_previous_boot(text)
    assert out["found"] and out["boundary"] == "banner" and out["abrupt_end"] is False
    # the previous boot only initialised its GPU; the fault is a boot older
    assert [(e["kind"], e["text"]) for e in out["events"]] == [("init_ok", "[drm] amdgpu kernel modesetting enabled.")]


def test_no_boundary_means_the_previous_boot_is_not_in_the_text() -> None:
    text = CRASHED.split("\n^@")[0] + "\n" + DAEMON + "\n"
    out = parse_syslog_previous_boot(text)
    assert out == {"found": False, "events": None, "boundary": None, "boundary_line": None,
                   "release": None, "abrupt_end": False}


def test_daemon_lines_are_not_the_kernels() -> None:
    """/var/log/messages mixes every daemon's lines in: only `<host> kernel:` lines are read."""
    daemon_says_reset = "May  7 17:21:09 k8snode gdm[1200]: amdgpu 0005:03:00.0: GPU reset(2) failed"
    out = parse_syslog_previous_boot(daemon_says_reset + "\n" + RHEL_BANNER + "\n")
    assert out["found"] and out["events"] == []
