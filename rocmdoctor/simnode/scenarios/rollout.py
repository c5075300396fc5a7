"""A kernel rollout gone wrong, with a boot loader to roll back: the node rebooted into
5.15.0-119-generic, for which amdgpu-dkms was never built (it has 5.15.0-105's build only).

The GRUB menu lines are real: `grep menuentry /boot/grub/grub.cfg` on an Ubuntu 22.04 machine with
kernels 5.15.0-119/-105/-84/-78, pasted in a public blog post about rolling a kernel update back
(found by the library's find_string, id 17388295550); their form is what GRUB's
util/grub.d/10_linux.in writes (`submenu '...' $menuentry_id_option 'gnulinux-advanced-UUID'`,
`menuentry '...' ... $menuentry_id_option 'gnulinux-VERSION-advanced-UUID'`). /etc/default/grub is
Ubuntu's default file (grub2's debian/default/grub).
"""

from __future__ import annotations

from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.scenarios import Scenario, from_cases
from rocmdoctor.simnode.scenarios.kernel_driver import RUNBOOK, dkms_wrong_kernel, healthy
from rocmdoctor.simnode.system import UBUNTU_2204_OS_RELEASE

PREVIOUS, BROKEN = "5.15.0-105-generic", "5.15.0-119-generic"

GRUB_MENU = """\
menuentry 'Ubuntu' --class ubuntu --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-simple-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
submenu 'Advanced options for Ubuntu' $menuentry_id_option 'gnulinux-advanced-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
menuentry 'Ubuntu, with Linux 5.15.0-119-generic' --class ubuntu --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-5.15.0-119-generic-advanced-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
menuentry 'Ubuntu, with Linux 5.15.0-119-generic (recovery mode)' --class ubuntu --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-5.15.0-119-generic-recovery-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
menuentry 'Ubuntu, with Linux 5.15.0-105-generic' --class ubuntu --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-5.15.0-105-generic-advanced-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
menuentry 'Ubuntu, with Linux 5.15.0-105-generic (recovery mode)' --class ubuntu --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-5.15.0-105-generic-recovery-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
menuentry 'Ubuntu, with Linux 5.15.0-84-generic' --class ubuntu --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-5.15.0-84-generic-advanced-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
menuentry 'Ubuntu, with Linux 5.15.0-84-generic (recovery mode)' --class ubuntu --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-5.15.0-84-generic-recovery-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
menuentry 'Ubuntu, with Linux 5.15.0-78-generic' --class ubuntu --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-5.15.0-78-generic-advanced-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
menuentry 'Ubuntu, with Linux 5.15.0-78-generic (recovery mode)' --class ubuntu --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-5.15.0-78-generic-recovery-cdc0eb43-b3e9-4337-b245-bb62aeb7cff5' {
menuentry 'UEFI Firmware Settings' $menuentry_id_option 'uefi-firmware' {
"""

DEFAULT_GRUB = """\
GRUB_DEFAULT=0
GRUB_TIMEOUT_STYLE=hidden
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`
GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"
GRUB_CMDLINE_LINUX=""
"""

#: update-grub regenerates grub.cfg from /etc/default/grub; the stub records the default it applied
UPDATE_GRUB_STUB = r"""
grep '^GRUB_DEFAULT=' "$R/etc/default/grub" > "$R/.sim/update-grub.applied" || exit 1
echo "Sourcing file \`/etc/default/grub'" >&2
"""


def with_boot_loader(node: SimNode) -> SimNode:
    for k in ("5.15.0-119-generic", "5.15.0-105-generic", "5.15.0-84-generic", "5.15.0-78-generic"):
        node.file(f"/boot/vmlinuz-{k}", "(kernel image)\n")
    node.file("/boot/grub/grub.cfg", GRUB_MENU)
    node.file("/etc/default/grub", DEFAULT_GRUB)
    return node.stub("update-grub", UPDATE_GRUB_STUB)


def kernel_update_no_dkms() -> SimNode:
    """Rebooted into 5.15.0-119 after an unattended upgrade; DKMS built amdgpu for 5.15.0-105 only."""
    return with_boot_loader(dkms_wrong_kernel(BROKEN, PREVIOUS, UBUNTU_2204_OS_RELEASE))


def before_kernel_update() -> SimNode:
    """The same node before the rollout: healthy on 5.15.0-105 (its sweep is the rollout's baseline)."""
    node = healthy()
    node.cmdline, node.kernel = node.cmdline.replace(node.kernel, PREVIOUS), PREVIOUS
    return with_boot_loader(node)


SCENARIOS = [Scenario("kernel-update-before", "healthy 8x MI300X on kernel 5.15.0-105 before a kernel rollout "
                      "(the baseline for demo:kernel-update-no-dkms)", before_kernel_update, (),
                      {"state": "pass", "step": None, "diagnosis": None, "vars": {}})] + from_cases([
    ("kernel-update-no-dkms", "rolled out kernel 5.15.0-119 without an amdgpu-dkms build for it (built for 5.15.0-105 only); "
     "the previous kernel is still in the GRUB menu: `rocmdoctor rollback` boots it again",
     kernel_update_no_dkms, "dkms", "dkms-not-built-for-kernel"),
], (RUNBOOK,))
