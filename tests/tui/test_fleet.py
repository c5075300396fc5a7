"""The fleet view (`rocmdoctor tui 'gpu[001-012]'`) through App.run_test: hosts arrive from a sweep
worker, the cohort findings sit on top, sorting/filtering answer while hosts are still pending,
Enter opens a host's triage tree, and a cohort is drained behind one confirmation that lists every
host, journaled. Snapshots at 80x24 and 200x50."""

from __future__ import annotations

import asyncio
import functools
import json
import threading
import time
from pathlib import Path

import pytest

from rocmdoctor.simnode.scenarios.gpu_oom import healthy
from rocmdoctor.simnode.scenarios.kernel_driver import dkms_wrong_kernel
from rocmdoctor.testing.cohort_fleet import fleet_results
from rocmdoctor.tui.fleet import ConfirmCohort, FleetApp, FleetSession, HostScreen

NAMES = [f"gpu{i:03d}" for i in range(1, 13)]
BROKEN = {"gpu002", "gpu005", "gpu008", "gpu011"}
RUNBOOKS = ("kernel-driver-mismatch",)


@functools.lru_cache(maxsize=1)
def _fleet():  # type: ignore[no-untyped-def]
    return fleet_results({"ok": healthy, "new-kernel": dkms_wrong_kernel},
                         [(n, "new-kernel" if n in BROKEN else "ok") for n in NAMES], RUNBOOKS)


def _plan():  # type: ignore[no-untyped-def]
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan

    return compile_plan(load_catalog(), list(RUNBOOKS), {})


def _session(tmp_path: Path, *, gate: threading.Event | None = None, drained: list | None = None) -> FleetSession:
    result = _fleet()

    def sweep(on_host):  # type: ignore[no-untyped-def]
        for i, h in enumerate(result.hosts):
            if gate is not None and i == 3:
                gate.wait(30)            # hold the rest of the fleet "in flight"
            on_host(h)
        return result

    def drain(hosts, reason):  # type: ignore[no-untyped-def]
        if drained is not None:
            drained.append((list(hosts), reason))
        return {h: "drained" for h in hosts}

    return FleetSession(sweep, journal_dir=str(tmp_path / "fleet"), drain=drain, user="oncall")


async def _done(pilot) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 30
    while pilot.app.phase != "done":
        assert time.monotonic() < deadline
        await pilot.pause(0.05)
    await pilot.pause()


def _rows(app: FleetApp) -> list[str]:
    from rocmdoctor.tui.host_table import HostTable

    return app.query_one("#hosts", HostTable).row_keys


def run_async(fn):  # type: ignore[no-untyped-def]
    @functools.wraps(fn)
    def wrapper(*a, **kw):  # type: ignore[no-untyped-def]
        return asyncio.run(fn(*a, **kw))
    return wrapper


@run_async
async def test_cohort_on_top_sort_filter_and_host_tree(tmp_path: Path) -> None:
    app = FleetApp(_session(tmp_path), _plan())
    async with app.run_test(size=(120, 40)) as pilot:
        await _done(pilot)
        top = str(app.query_one("#cohorts").render())
        assert "kernel-driver-mismatch/dkms-not-built-for-kernel: 4 host(s) gpu[002,005,008,011]" in top
        assert "4/4 failing hosts have kernel 6.8.0-45-generic; 0/8 healthy do" in top
        assert _rows(app)[:4] == sorted(BROKEN)           # worst first
        await pilot.press("s")                            # -> by host
        assert _rows(app) == NAMES
        await pilot.press("/", *"6.8.0", "enter")
        assert sorted(_rows(app)) == sorted(BROKEN)
        await pilot.press("escape")
        assert len(_rows(app)) == 12
        await pilot.press("s", "s", "s")                  # back to state order
        await pilot.press("enter")
        assert isinstance(app.screen, HostScreen) and app.screen.host.host == "gpu002"
        await pilot.press("escape")
        assert not isinstance(app.screen, HostScreen)


@run_async
async def test_drain_a_cohort_lists_every_host_and_is_journaled(tmp_path: Path) -> None:
    drained: list = []
    session = _session(tmp_path, drained=drained)
    app = FleetApp(session, _plan())
    async with app.run_test(size=(120, 40)) as pilot:
        await _done(pilot)
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmCohort)
        assert app.screen.hosts == sorted(BROKEN) or set(app.screen.hosts) == BROKEN
        await pilot.press("escape")                       # declined first
        await pilot.pause()
        assert drained == []
        await pilot.press("d", "y")
        await pilot.pause()
        await pilot.press("q")
    assert drained and set(drained[0][0]) == BROKEN
    draft = Path(app.postmortem_path).read_text()
    assert draft.startswith("# Postmortem draft: the kernel update to 6.8.0-45-generic is the likely trigger")
    assert "drain of 4 host(s) approved by oncall: rocmdoctor: kernel-driver-mismatch/dkms-not-built-for-kernel" in draft
    assert "- 4/4 failing hosts have kernel 6.8.0-45-generic; 0/8 healthy do" in draft
    assert drained[0][1] == "rocmdoctor: kernel-driver-mismatch/dkms-not-built-for-kernel (kernel 6.8.0-45-generic)"
    kinds = [json.loads(line)["kind"] for line in session.journal.path.read_text().splitlines()]
    assert kinds == ["sweep_started", "sweep_finished", "drain_declined", "drain_approved", "drain_done"]


@run_async
async def test_keys_answer_while_hosts_are_in_flight(tmp_path: Path) -> None:
    gate = threading.Event()
    app = FleetApp(_session(tmp_path, gate=gate), _plan())
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            deadline = time.monotonic() + 10
            while len(app.hosts) < 3:
                assert time.monotonic() < deadline
                await pilot.pause(0.02)
            await pilot.press("s", "/", "g", "p", "u")
            # answered while 9 hosts are still in flight (latency: benchmarks/fleet_tui_bench.py)
            assert app.sort_key == "host" and app.filter_text == "gpu" and app.phase == "sweeping"
            assert _rows(app) == ["gpu001", "gpu002", "gpu003"]
            gate.set()
            await _done(pilot)
    finally:
        gate.set()


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
def test_fleet_snapshot(snap_compare, tmp_path: Path, size) -> None:  # type: ignore[no-untyped-def]
    app = FleetApp(_session(tmp_path), _plan())
    assert snap_compare(app, run_before=_done, terminal_size=size)


@run_async
async def test_cli_fleet_view_on_demo_nodes_runs_the_real_sweep(tmp_path: Path) -> None:
    """`rocmdoctor tui demo:a,demo:b` goes through the sweep core (opener, plans, probe)."""
    from rocmdoctor.cli.fleet_tui import build_fleet_app
    from rocmdoctor.cli.incident import _is_fleet

    target = "demo:healthy-mi300x,demo:dkms-wrong-kernel"
    assert _is_fleet(target) and not _is_fleet("demo:healthy-mi300x") and _is_fleet("gpu[001-004]")
    app = build_fleet_app(target, ("kernel-driver-mismatch",), incidents_dir=str(tmp_path / "fleet"))
    async with app.run_test(size=(120, 40)) as pilot:
        deadline = time.monotonic() + 60
        while app.phase != "done":
            assert time.monotonic() < deadline
            await pilot.pause(0.1)
        await pilot.pause()
        assert _rows(app) == ["demo:dkms-wrong-kernel", "demo:healthy-mi300x"]
        assert "kernel-driver-mismatch/dkms-not-built-for-kernel: 1 host(s) demo:dkms-wrong-kernel" in \
            str(app.query_one("#cohorts").render())


@run_async
async def test_every_host_is_a_row_and_the_keys_reach_the_last(tmp_path: Path) -> None:
    """No row cap: the table renders only the lines on screen, so all hosts are rows."""
    from rocmdoctor.tui.host_table import HostTable

    app = FleetApp(_session(tmp_path), _plan())
    async with app.run_test(size=(120, 16)) as pilot:
        await _done(pilot)
        table = app.query_one("#hosts", HostTable)
        assert table.row_count == 12 and table.cursor_key == sorted(BROKEN)[0]
        await pilot.press("end")
        assert table.cursor_key == "gpu012" and table.scroll_y > 0     # scrolled to keep it on screen
        await pilot.press("home", "down", "down")
        assert table.cursor_key == sorted(BROKEN)[2] and table.scroll_y == 0
        await pilot.press("s")                                          # sorted by host: the cursor follows
        assert _rows(app) == NAMES and table.cursor_key == sorted(BROKEN)[2]
        await pilot.press("/", *"gpu012", "enter")
        assert _rows(app) == ["gpu012"] and table.cursor_key == "gpu012"


@run_async
async def test_host_table_draws_only_what_fits_and_cuts_long_values(tmp_path: Path) -> None:
    from rich.text import Text

    from rocmdoctor.tui.host_table import Column, HostTable
    from textual.app import App, ComposeResult

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield HostTable([Column("host", 8), Column("diagnosis", 12)], id="t")

    app = One()
    async with app.run_test(size=(40, 6)) as pilot:
        table = app.query_one(HostTable)
        table.set_rows([(f"n{i}", (Text(f"n{i}"), Text("x" * 30 if i == 0 else "[bold]y"))) for i in range(5000)])
        await pilot.pause()
        lines = ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]
        assert lines[0].startswith("host  ") and "diagnosis" in lines[0]
        assert lines[1].startswith("n0    ") and "x" * 11 + "…" in lines[1]    # cut at its max width
        assert "[bold]y" in lines[2]                                       # a node's text is never markup
        table.focus()
        await pilot.press("end")
        assert table.cursor_key == "n4999"
