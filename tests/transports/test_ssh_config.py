"""The fast ssh_config lookup agrees with OpenSSH's own `ssh -G` (its speed: benchmarks/ssh_config_bench.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rocmdoctor.transports.ssh_config import SSHConfigFile, parse_jump
from rocmdoctor.transports.ssh_errors import SSHConfigError

CONFIG = """\
Include {dir}/extra.conf
Host web* !web3
  User webuser
  Port 2201
Host web1
  HostName %h.example.com
  IdentityFile ~/.ssh/id_web1
  User ignored-first-value-wins
Host bastion
  HostName 10.0.0.1
  User jumper
Host inner
  HostName 192.168.1.5
  ProxyJump bastion
  HostKeyAlias inner-key
  SetEnv ROCMDOCTOR_ROOTFS=/srv/sim/inner "B=two words"
Match originalhost db
  HostName db.internal
Match host db.internal
  User dba
Host *
  SetEnv C=3
  IdentityFile ~/.ssh/id_common
  UserKnownHostsFile ~/.ssh/kh_%h {dir}/kh2
  ConnectTimeout 7
"""


def ssh_g(config: Path, alias: str) -> dict[str, list[str]]:
    out = subprocess.run(["ssh", "-G", "-F", str(config), alias], capture_output=True, text=True,
                         timeout=10, check=True).stdout
    result: dict[str, list[str]] = {}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        result.setdefault(key, []).append(value)
    return result


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "extra.conf").write_text("Host extra\n  HostName 1.2.3.4\n  Port 2022\n")
    path = tmp_path / "config"
    path.write_text(CONFIG.format(dir=tmp_path))
    return path


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the OpenSSH client")
@pytest.mark.parametrize("alias", ["web1", "web3", "inner", "db", "extra", "other"])
def test_lookup_matches_ssh_dash_g(config, alias):
    mine = SSHConfigFile(config).lookup(alias)
    ref = ssh_g(config, alias)
    assert mine.hostname == ref["hostname"][0]
    assert mine.port == int(ref["port"][0])
    assert mine.user == ref["user"][0]
    assert list(mine.identity_files) == [os.path.expanduser(p) for p in ref["identityfile"]]
    assert list(mine.user_known_hosts) == ref["userknownhostsfile"][0].split()
    assert mine.proxy_jump == tuple(ref.get("proxyjump", [""])[0].split(",")) if "proxyjump" in ref \
        else mine.proxy_jump == ()
    assert mine.host_key_alias == ref.get("hostkeyalias", [""])[0]
    assert mine.connect_timeout == float(ref["connecttimeout"][0])
    setenv = dict(v.split("=", 1) for v in ref.get("setenv", []))
    root = setenv.pop("ROCMDOCTOR_ROOTFS", "")
    assert (mine.root, mine.env) == (root, setenv)


def test_known_hosts_name_follows_openssh(config):
    cfg = SSHConfigFile(config)
    assert cfg.lookup("web1").known_hosts_name == "[web1.example.com]:2201"
    assert cfg.lookup("other").known_hosts_name == "other"
    assert cfg.lookup("inner").known_hosts_name == "inner-key"   # HostKeyAlias, which paramiko ignores


def test_a_thousand_host_blocks_each_resolve_to_their_own_settings(tmp_path):
    # the file a 1000-node fleet's generated ssh_config looks like; how fast it is read is
    # measured in benchmarks/ssh_config_bench.py (docs/benchmarks.md), not asserted here
    blocks = "".join(f"Host node{i:04d}\n  HostName 10.1.{i // 250}.{i % 250}\n  Port 2222\n"
                     f"  IdentityFile ~/.ssh/id_{i}\n  SetEnv ROCMDOCTOR_ROOTFS=/sim/{i}\n" for i in range(1000))
    path = tmp_path / "big"
    path.write_text(blocks + "Host *\n  User ops\n")
    cfg = SSHConfigFile(path)
    settings = [cfg.lookup(f"node{i:04d}") for i in range(1000)]
    for i, s in enumerate(settings):
        assert (s.alias, s.hostname, s.port, s.user, s.root) == (
            f"node{i:04d}", f"10.1.{i // 250}.{i % 250}", 2222, "ops", f"/sim/{i}")
    assert settings[777].hostname == "10.1.3.27" and settings[777].root == "/sim/777"
    assert cfg.lookup("node0777") is settings[777]       # looked up once, then cached per alias


@pytest.mark.parametrize("text, line, words", [
    ("Host a\n  HostName\n", 2, "expected 'Keyword value'"),
    ("Host a\n  HostName \"unterminated\n", 2, "bad quoting"),
    ("Match exec \"true\"\n  User x\n", 1, "Match exec is not supported"),
])
def test_malformed_config_names_file_and_line(tmp_path, text, line, words):
    path = tmp_path / "cfg"
    path.write_text(text)
    with pytest.raises(SSHConfigError) as info:
        SSHConfigFile(path)
    assert str(info.value).startswith(f"{path}:{line}: ") and words in str(info.value)


def test_missing_explicit_config_is_a_clear_error(tmp_path):
    with pytest.raises(SSHConfigError, match="ssh config file not found"):
        SSHConfigFile(tmp_path / "nope")


@pytest.mark.parametrize("spec, expected", [
    ("bastion", (None, "bastion", None)),
    ("ops@bastion:2222", ("ops", "bastion", 2222)),
    ("ops@[fe80::1]:22", ("ops", "fe80::1", 22)),
    ("ssh://jump.example.com:2200", (None, "jump.example.com", 2200)),
])
def test_parse_jump(spec, expected):
    assert parse_jump(spec) == expected


def test_environment_names_are_never_spliced_unchecked(tmp_path) -> None:
    """Values are shell-quoted; names cannot be, so a bad name is refused outright."""
    import pytest

    from rocmdoctor.errors import TargetError
    from rocmdoctor.transports.ssh import SSHTransport

    cfg = tmp_path / "ssh_config"
    cfg.write_text("Host node1\n  HostName 127.0.0.1\n")
    ok = SSHTransport("node1", ssh_config=str(cfg), env={"ROCR_VISIBLE_DEVICES": "$(touch /tmp/x)"})
    assert ok.remote_command("true", sudo=False) == "export ROCR_VISIBLE_DEVICES='$(touch /tmp/x)'; true"
    with pytest.raises(TargetError, match="bad environment variable name 'X;touch /tmp/pwned;Y'"):
        SSHTransport("node1", ssh_config=str(cfg), env={"X;touch /tmp/pwned;Y": "1"})


BRACKETS = """\
Host node[0-9]
  User bracket-literal
Host gpu?? !gpu9*
  Port 2299
Match host rack[12]-*
  HostName matched-by-class
Host *
  User default-user
"""


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the OpenSSH client")
@pytest.mark.parametrize("alias", ["node5", "node[0-9]", "gpu12", "gpu91", "rack1-a", "rack[12]-a", "other"])
def test_brackets_are_literal_as_openssh_reads_them(tmp_path: Path, alias: str) -> None:
    """Issue 43: only `*` and `?` are wildcards in Host and Match host patterns; `[...]` is text."""
    path = tmp_path / "config"
    path.write_text(BRACKETS)
    mine = SSHConfigFile(path).lookup(alias)
    ref = ssh_g(path, alias)
    assert (mine.user, mine.port, mine.hostname) == (ref["user"][0], int(ref["port"][0]), ref["hostname"][0])
