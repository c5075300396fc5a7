#!/usr/bin/env bash
# The whole test suite from a fresh clone: `bash tests/run.sh` (extra arguments go to pytest).
#
# 1. As root, installs openssh-server when it is missing (the SSH tests start a real sshd
#    on 127.0.0.1); as another user, says what to install and the SSH tests fail.
# 2. Builds a virtual environment in .venv from this checkout and installs the package
#    with its test extras into it: a dependency missing from pyproject.toml fails here,
#    not on a newcomer's machine. ROCMDOCTOR_VENV=DIR puts it elsewhere.
# 3. Runs pytest; "no tests collected" (exit 5) counts as a failure.
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

status=0
"$venv/bin/python" -m pytest -q "$@" || status=$?
if [ "$status" = 5 ]; then
  echo "tests/run.sh: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
