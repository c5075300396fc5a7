"""Hostlist expressions as Slurm/ClusterShell write them, and folding back."""

from __future__ import annotations

import random

import pytest

from rocmdoctor.fleet.hostlist import MAX_HOSTS, HostlistError, expand, fold


@pytest.mark.parametrize("expr, hosts", [
    ("node42", ["node42"]),
    ("node[001-003]", ["node001", "node002", "node003"]),
    ("gpu[01-04,07]-ib", ["gpu01-ib", "gpu02-ib", "gpu03-ib", "gpu04-ib", "gpu07-ib"]),
    ("rack[1-2]-n[01-02]", ["rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"]),
    ("a,b[1-2],c", ["a", "b1", "b2", "c"]),
    ("n[1-9/4]", ["n1", "n5", "n9"]),
    ("n[8-11]", ["n8", "n9", "n10", "n11"]),             # no padding without a leading zero
    ("n[08-11]", ["n08", "n09", "n10", "n11"]),          # padding from the lower bound's width
    ("node[1,1,2],node1", ["node1", "node2"]),           # duplicates once, first order kept
    ("10.0.0.[1-2]", ["10.0.0.1", "10.0.0.2"]),
])
def test_expand(expr: str, hosts: list[str]) -> None:
    assert expand(expr) == hosts


def test_expand_node_001_168_like_slurm() -> None:
    hosts = expand("node[001-168]")
    assert len(hosts) == 168 and hosts[0] == "node001" and hosts[-1] == "node168"


@pytest.mark.parametrize("expr, words", [
    ("node[1-", "unbalanced"),
    ("node]1[", "missing bracket"),        # ClusterShell NodeSet's own wording from here on
    ("node[3-1]", "invalid values in range"),
    ("node[a-b]", "bad range"),
    ("node[1-2", "unbalanced"),
    ("n[[1-2]]", "illegal closing bracket"),
    (",", "names no host"),
    (f"n[0-{MAX_HOSTS}]", f"expands to {MAX_HOSTS + 1} hosts"),
    ("a[1-400]b[1-400]", "expands to 160000"),
])
def test_bad_expressions_say_what_is_wrong(expr: str, words: str) -> None:
    with pytest.raises(HostlistError) as exc:
        expand(expr)
    assert words in exc.value.message and repr(expr) in exc.value.message
    assert exc.value.hint


@pytest.mark.parametrize("hosts, folded", [
    (["node001", "node002", "node003", "node007"], "node[001-003,007]"),
    (["gpu01-ib", "gpu02-ib", "gpu04-ib"], "gpu[01-02,04]-ib"),
    ([f"node{i:02d}" for i in range(1, 11)], "node[01-10]"),
    (["login", "node1", "node10", "node2"], "login,node[1-2,10]"),
    (["node5"], "node5"),
])
def test_fold(hosts: list[str], folded: str) -> None:
    assert fold(hosts) == folded


def test_fold_round_trips_random_sets() -> None:
    rng = random.Random(5)
    for _ in range(200):
        width = rng.choice([0, 2, 3])
        names = {f"{rng.choice(['n', 'gpu', 'r1-n'])}{str(rng.randint(0, 120)).zfill(width)}"
                 f"{rng.choice(['', '-ib'])}" for _ in range(rng.randint(1, 30))}
        assert set(expand(fold(names))) == names, sorted(names)


def test_clustershell_exclusion_and_operators() -> None:
    """ClusterShell's set operators work in every place a hostlist is accepted."""
    assert expand("node[001-010]!node[003-009]") == ["node001", "node002", "node010"]
    assert expand("n[1-6]&n[4-9]") == ["n4", "n5", "n6"]
    assert fold(expand("gpu[001-168]!gpu[038-168]")) == "gpu[001-037]"


def test_clustershell_groups_from_its_configuration(tmp_path, monkeypatch) -> None:
    """@group names come from ClusterShell's groups configuration (a YAML groups.d file here)."""
    import ClusterShell.NodeSet as ns
    from ClusterShell.NodeUtils import GroupResolverConfig

    conf = tmp_path / "groups.conf"
    (tmp_path / "groups.d").mkdir()
    conf.write_text(f"[Main]\ndefault: local\nautodir: {tmp_path / 'groups.d'}\n")
    (tmp_path / "groups.d" / "local.yaml").write_text("local:\n  mi300x: 'gpu[001-004]'\n")
    monkeypatch.setattr(ns, "RESOLVER_STD_GROUP", GroupResolverConfig(str(conf)))
    assert expand("@mi300x") == ["gpu001", "gpu002", "gpu003", "gpu004"]
    with pytest.raises(HostlistError) as exc:
        expand("@nosuchgroup")
    assert "nosuchgroup" in exc.value.message and "groups.d" in exc.value.hint
