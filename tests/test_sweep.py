"""Fleet sweeps against a real OpenSSH sshd on loopback: 200 hosts, 10% of them faulty
for real (closed port, black hole, wrong host key, refused key, hung command, session
killed mid-command), plus the pool's own guarantees (watchdog, deadline, no crash)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.cli.main import run
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.fleet.inventory import HostSpec, resolve_targets
from rocmdoctor.status import State
from rocmdoctor.fleet.sweep import GRACE_S, WATCH_S, run_sweep
from rocmdoctor.fleet.sweep_open import FleetOpener, PlanCache
from rocmdoctor.simnode.node import sim_transport
from rocmdoctor.testing.sshd import require_sshd
from rocmdoctor.testing.sweep_fleet import CATALOG, Fleet, build_fleet
from rocmdoctor.engine.triage import run_triage

# per-host timeouts and sweep deadlines of a few seconds: run alone (tests/run.sh), not beside another worker
pytestmark = pytest.mark.serial

FAULTS = {"refused": 4, "timeout": 4, "host-key-changed": 3, "auth": 3, "command-timeout": 3, "dropped": 3}
HOST_TIMEOUT = 8.0
DEADLINE = 50.0


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Fleet:
    require_sshd()
    f = build_fleet(tmp_path_factory.mktemp("fleet"), 200, FAULTS)
    yield f
    f.stop()


@pytest.fixture(scope="module")
def swept(fleet: Fleet, tmp_path_factory: pytest.TempPathFactory):
    plans = PlanCache(load_catalog([CATALOG]), ["sweep_test"], {})
    audit_path = tmp_path_factory.mktemp("audit") / "audit.log"
    opener = FleetOpener(ssh_config=str(fleet.ssh_config), connect_timeout=HOST_TIMEOUT, audit=AuditLog(audit_path))
    start = time.monotonic()
    result = run_sweep(resolve_targets(["node[001-200]"]), plan_for=plans, opener=opener, fanout=64,
                       timeout=HOST_TIMEOUT, deadline=DEADLINE, runbooks=("sweep_test",), retries=opener.retries)
    opener.close()
    return result, time.monotonic() - start, plans, audit_path


def _local_rows(root: Path) -> list[tuple]:
    plan = compile_plan(load_catalog([CATALOG]), ["sweep_test"], {})
    report = run_triage(sim_transport(root), plan)
    return [(s.step_id, s.state, s.check.message, s.check.evidence) for rb in report.runbooks for s in rb.steps]


def test_200_hosts_finish_within_the_deadline_and_none_is_lost(swept) -> None:
    result, wall, plans, _ = swept
    assert wall < DEADLINE
    assert [h.host for h in result.hosts] == [f"node{i:03d}" for i in range(1, 201)]
    assert plans.compiled == 1  # compiled once for the whole sweep
    assert sum(result.counts().values()) == 200


def test_each_faulty_host_is_unknown_with_its_reason(fleet: Fleet, swept) -> None:
    result = swept[0]
    by_host = {h.host: h for h in result.hosts}
    assert result.reasons() == dict(sorted(FAULTS.items()))
    for kind in FAULTS:
        for name in fleet.hosts(kind):
            h = by_host[name]
            assert (h.state, h.reason) == (State.UNKNOWN, kind), (name, h.reason, h.message)
            # a host the watchdog abandons is recorded at its next look after budget + grace (one WATCH_S),
            # plus the recording itself; one that times out by itself ends inside the budget
            assert h.message and h.duration_ms <= (HOST_TIMEOUT + GRACE_S + 2 * WATCH_S) * 1000
    words = {"refused": "connection refused", "timeout": "within", "host-key-changed": "HOST KEY CHANGED",
             "auth": "authentication as", "command-timeout": "did not finish", "dropped": "dropped mid-command"}
    for kind, word in words.items():
        assert word in by_host[fleet.hosts(kind)[0]].message


def test_healthy_hosts_match_a_local_triage_of_the_same_node(fleet: Fleet, swept) -> None:
    result = swept[0]
    expected = {kind: _local_rows(fleet.roots[kind]) for kind in ("healthy", "no-driver", "tool-warn")}
    assert [r[1] for r in expected["healthy"]] == [State.PASS] * 3
    assert expected["no-driver"][1][1] == State.FAIL and expected["tool-warn"][2][1] == State.WARN
    seen = 0
    for h in result.hosts:
        kind = fleet.kinds[h.host]
        if kind not in expected:
            continue
        got = [(s.step_id, s.state, s.check.message, s.check.evidence) for rb in h.report.runbooks for s in rb.steps]
        assert got == expected[kind], h.host
        assert h.reason == "" and h.round_trips == 1
        seen += 1
    assert seen == 180


def test_every_probe_sent_is_in_the_audit_log(fleet: Fleet, swept) -> None:
    entries = [json.loads(line) for line in swept[3].read_text().splitlines()]
    probes = {e["host"] for e in entries if "sweep probe" in e.get("note", "")}
    reached = {h for h, k in fleet.kinds.items() if k in ("healthy", "no-driver", "tool-warn", "command-timeout",
                                                          "dropped")}
    assert probes == reached


def test_cli_sweep_over_ssh_one_exec_per_host_json(fleet: Fleet, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    names = [h for h in fleet.hosts() if fleet.kinds[h] in ("healthy", "no-driver", "refused", "auth")][:24]
    before = fleet.sshd.exec_sessions()
    code = run(["sweep", ",".join(names), "--ssh-config", str(fleet.ssh_config), "--format", "json",
                "--timeout", str(HOST_TIMEOUT), "--path", str(CATALOG), "-r", "sweep_test",
                "--audit-log", str(tmp_path / "audit.log")])
    doc = json.loads(capsys.readouterr().out)
    # worst state wins, and fail outranks unknown (status.py): exit 2 CRITICAL
    assert code == 2 and doc["exit_status"] == 2 and doc["state"] == "fail"
    assert doc["unreachable"] == {"auth": sum(fleet.kinds[n] == "auth" for n in names),
                                  "refused": sum(fleet.kinds[n] == "refused" for n in names)}
    reached = [h for h in doc["hosts"] if h["reachable"]]
    time.sleep(0.2)  # sshd logs the session after it starts
    assert fleet.sshd.exec_sessions() - before == len(reached)
    for h in doc["hosts"]:
        kind = fleet.kinds[h["host"]]
        if kind in ("refused", "auth"):
            assert (h["state"], h["reason"]) == ("unknown", kind)
        else:
            assert h["round_trips"] == 1
            assert h["runbooks"]["sweep_test"] == ("fail" if kind == "no-driver" else "pass")
    states = [h["state"] for h in doc["hosts"]]
    assert states == sorted(states, key=["fail", "warn", "unknown", "pass"].index)  # worst first


# -- the pool's own guarantees, with in-process transports (no sshd needed) ------------------

@pytest.fixture(scope="module")
def node_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rocmdoctor.testing.sweep_fleet import sim_nodes

    return sim_nodes()["healthy"].materialize(tmp_path_factory.mktemp("n") / "healthy")


def _opener(root: Path, release: threading.Event):
    def open_(spec: HostSpec, budget: float):
        if spec.name.startswith("hang"):
            release.wait(60)           # a wedged connect that ignores its timeout
        if spec.name.startswith("slow"):
            time.sleep(0.6)
        if spec.name.startswith("boom"):
            raise ValueError("opener bug")
        return sim_transport(root, host=spec.name)
    return open_


def test_watchdog_abandons_a_wedged_host_and_keeps_the_fanout(node_root: Path) -> None:
    release = threading.Event()
    plans = PlanCache(load_catalog([CATALOG]), ["sweep_test"], {})
    hosts = [HostSpec("hang1"), *(HostSpec(f"ok{i}") for i in range(6)), HostSpec("boom1")]
    start = time.monotonic()
    try:
        result = run_sweep(hosts, plan_for=plans, opener=_opener(node_root, release), fanout=2, timeout=1.0)
    finally:
        release.set()
    took = time.monotonic() - start
    by = {h.host: h for h in result.hosts}
    assert (by["hang1"].state, by["hang1"].reason) == (State.UNKNOWN, "timeout")
    assert "abandoned" in by["hang1"].message
    assert (by["boom1"].reason, by["boom1"].message) == ("internal", "ValueError: opener bug")
    assert all(by[f"ok{i}"].state == State.PASS and by[f"ok{i}"].round_trips == 1 for i in range(6))
    assert took < 1.0 + GRACE_S + 3.0  # the wedged host cost one slot for one budget, not the sweep


def test_deadline_reports_unstarted_hosts_unknown(node_root: Path) -> None:
    plans = PlanCache(load_catalog([CATALOG]), ["sweep_test"], {})
    hosts = [HostSpec(f"slow{i:02d}") for i in range(20)]
    start = time.monotonic()
    result = run_sweep(hosts, plan_for=plans, opener=_opener(node_root, threading.Event()), fanout=2,
                       timeout=30, deadline=1.5)
    assert time.monotonic() - start < 1.5 + GRACE_S + 1.0
    assert [h.host for h in result.hosts] == [h.name for h in hosts]
    late = [h for h in result.hosts if h.reason == "deadline"]
    done = [h for h in result.hosts if h.state == State.PASS]
    cut = [h for h in result.hosts if h.reason in ("timeout", "command-timeout")]  # started, budget ran out
    assert late and done and len(late) + len(done) + len(cut) == 20
    assert all("deadline of 1.5s" in h.message for h in late) and len(cut) <= 2


def test_per_host_vars_compile_once_per_distinct_set(node_root: Path) -> None:
    plans = PlanCache(load_catalog([CATALOG]), ["sweep_test"], {"expect_gpus": "8"})
    hosts = [HostSpec(f"ok{i}", vars={"rack": str(i % 2)}) for i in range(6)]
    result = run_sweep(hosts, plan_for=plans, opener=_opener(node_root, threading.Event()), fanout=3, timeout=10)
    assert result.state == State.PASS and plans.compiled == 2
    assert plans(hosts[0]).vars["expect_gpus"] == "8"


def test_1000_hosts_at_fanout_64_none_lost(tmp_path: Path) -> None:
    """Issue 5: concurrent connection set-up once lost hosts at random (25 of 500); here
    every one of 1000 loopback hosts must come back with its probe answered."""
    require_sshd()
    big = build_fleet(tmp_path / "fleet", 1000, healthy_kinds=("healthy",))
    try:
        plans = PlanCache(load_catalog([CATALOG]), ["sweep_test"], {})
        opener = FleetOpener(ssh_config=str(big.ssh_config), connect_timeout=30.0,
                             audit=AuditLog(tmp_path / "audit.log"))
        result = run_sweep(resolve_targets(["node[001-999]", "node1000"]),
                           plan_for=plans, opener=opener, fanout=64, timeout=60.0, deadline=300.0,
                           runbooks=("sweep_test",), retries=opener.retries)
        opener.close()
    finally:
        big.stop()
    assert len(result.hosts) == 1000
    lost = [(h.host, h.reason, h.message[:120]) for h in result.hosts if h.state != State.PASS]
    assert lost == []
    assert all(h.round_trips == 1 for h in result.hosts)
