"""Installed-package listings, and the ROCm release each of AMD's packages was built for.

An in-place upgrade that moves some of ROCm's packages and leaves others behind gives a node two
releases' libraries side by side; AMD's own answer for ROCm 3.x-4.x was "Upgrade does not work now
... uninstall old rocm and install new" (ROCm/ROCm#1451), and the package versions say which
release each package belongs to.

Formats read (each from real output):

- `dpkg -l` (the probe's own gather): `ii  rocm-core  5.1.0.50100-36  amd64  Radeon Open Compute ...`
  (cupy/cupy#7358); the first two letters are the wanted and current state, and only current `i`
  counts (`rc` is a removed package whose configuration files stayed). dpkg prints every column at
  its widest entry, not cut to the terminal (guillemj/dpkg src/query/main.c, list_format_init);
- `dpkg-query -W`: `name<TAB>version`, dpkg's default `${binary:Package}\t${Version}\n` (same file);
- `apt list --installed`: `rocm-opencl/now 3.6Beta-17-g875c1f8-rocm-rel-4.0-23 amd64 [installed,local]`
  (ROCm/ROCm#1451);
- `rpm -qa`: `rocm-smi-lib-7.3.0.60200-66.el8.x86_64` (name-version-release.arch).

Lines that are none of these (a shell prompt, apt's "Listing...", a description line) are skipped:
tickets paste listings inside other text.

The release in a version: AMD's packages since ROCm 4.x append the release as five digits
`MMmmpp` before the build number (`5.1.0.50100-36`: ROCm 5.1.0; `1.0.0.70001-42~24.04`: 7.0.1);
older ones carry `rocm-rel-X.Y` (`1.6.0.143-rocm-rel-3.5-34-e24e8c1`). A distribution's own build
of a ROCm component (`rocminfo 5.7.1-3build1`) carries neither and has no release here.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_DPKG_L = re.compile(r"^(?P<state>[uihrp][ncHUFWti]R?)\s+(?P<name>[a-z0-9][a-z0-9+.:-]*)\s+(?P<version>\S+)\s+(?P<arch>amd64|arm64|all|i386|ppc64el)\b")
_APT_LIST = re.compile(r"^(?P<name>[a-z0-9][a-z0-9+.-]*)/(?P<suites>\S+) (?P<version>\S+) (?P<arch>\S+) \[(?P<flags>[^\]]*installed[^\]]*)\]")
_QUERY = re.compile(r"^(?P<name>[a-z0-9][a-z0-9+.:-]*)\t(?P<version>\S+)$")
_RPM = re.compile(r"^(?P<name>[A-Za-z0-9][\w+.-]*?)-(?P<version>[^-\s]+-[^-\s]+)\.(?P<arch>x86_64|noarch|aarch64|i686|ppc64le)$")
# X.Y.Z.<code>-<build>: the code after a three-part component version (a Debian version such as
# liberror-perl's 0.17029-1 is not one)
_RELEASE_CODE = re.compile(r"^(?:\d+:)?\d+\.\d+\.\d+\.(?P<code>[1-9]\d{4})-")
_RELEASE_REL = re.compile(r"rocm-rel-(?P<rel>\d+\.\d+(?:\.\d+)?)")


def rocm_release_of(version: str) -> str | None:
    """The ROCm release an AMD package version names (`5.1.0.50100-36` -> `5.1.0`), or None."""
    m = _RELEASE_CODE.match(version)
    if m:
        code = int(m["code"])
        return f"{code // 10000}.{code // 100 % 100}.{code % 100}"
    m = _RELEASE_REL.search(version)
    return m["rel"] if m else None


@parser("packages")
def parse_packages(text: str) -> list[dict[str, Any]]:
    """Installed packages from dpkg-query -W, dpkg -l, apt list --installed or rpm -qa output.

    Returns `[{name, version, release, line}]` in listing order (`release`: the ROCm release the
    version names, or None); `dpkg -l` rows count only when the second letter, the current state, is `i`
    (`ii`, `hi`), not a removed package's `rc` or a half-installed `iU`.
    """
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        m = _QUERY.match(raw.strip("\r")) or _APT_LIST.match(line) or _RPM.match(line)
        if m is None:
            m = _DPKG_L.match(line)
            if m is None or m["state"][1] != "i":   # desired/status: only what is installed
                continue
        out.append({"name": m["name"].split(":")[0], "version": m["version"],
                    "release": rocm_release_of(m["version"]), "line": line})
    return out
