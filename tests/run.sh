#!/usr/bin/env bash
# The whole test suite from a fresh clone: `bash tests/run.sh` (extra arguments go to pytest).
#
# 1. As root, installs openssh-server when it is missing (the SSH tests start a real sshd
#    on 127.0.0.1); as another user, says what to install and the SSH tests fail.
# 2. Builds a virtual environment in .venv from this checkout and installs the package
#    with its test extras into it: a dependency missing from pyproject.toml fails here,
#    not on a newcomer's machine. ROCMDOCTOR_VENV=DIR puts it elsewhere.
# 3. Runs pytest over all cores (pytest-xdist;
#    ROCMDOCTOR_TEST_WORKERS=N sets how many), then, alone, the tests marked `serial`: their
#    timeouts and deadlines are wall-clock bounds that a busy second worker would break.
#    "No tests collected" (exit 5) counts as a failure only when neither run collected any.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/sbin/sshd ] || ! command -v ssh-keygen >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "tests/run.sh: installing openssh-server for the SSH tests" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server openssh-client >/dev/null
  else
    echo "tests/run.sh: openssh-server is missing; install it (apt-get install openssh-server) or the SSH tests fail" >&2
  fi
fi

venv="${ROCMDOCTOR_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check -e '.[test]'

workers="${ROCMDOCTOR_TEST_WORKERS:-auto}"
parallel=0
"$venv/bin/python" -m pytest -q -n "$workers" -m "not serial" "$@" || parallel=$?
serial=0
"$venv/bin/python" -m pytest -q -m serial "$@" || serial=$?
if [ "$parallel" = 5 ] && [ "$serial" = 5 ]; then
  echo "tests/run.sh: pytest collected no tests" >&2
  exit 1
fi
[ "$parallel" = 5 ] && parallel=0
[ "$serial" = 5 ] && serial=0
if [ "$parallel" != 0 ]; then exit "$parallel"; fi
exit "$serial"
