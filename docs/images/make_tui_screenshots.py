"""Regenerate the TUI screenshots in docs/images/ and docs/postmortem-sample.md
from the demo node `demo:amdgpu-not-loaded` (Textual exports the SVGs).

    XDG_STATE_HOME=$(mktemp -d) XDG_CACHE_HOME=$(mktemp -d) python docs/images/make_tui_screenshots.py
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from rocmdoctor.engine.core import TriageRequest
from rocmdoctor.incident.journal import read_journal
from rocmdoctor.incident.postmortem import render_postmortem
from rocmdoctor.tui.app import IncidentApp
from rocmdoctor.tui.session import IncidentSession

DOCS = Path(__file__).resolve().parent.parent
TARGET = "demo:amdgpu-not-loaded"


async def _until(pilot, cond, timeout: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise SystemExit("timed out")
        await pilot.pause(0.05)
    await pilot.pause()


async def main() -> None:
    incidents = tempfile.mkdtemp(prefix="rocmdoctor-docs-")
    session = IncidentSession(TriageRequest(TARGET, runbooks=("gpu-not-visible",)), incidents_dir=incidents)
    app = IncidentApp(session, user="oncall")
    shot = lambda name: app.save_screenshot(filename=name, path=str(DOCS / "images"))  # noqa: E731
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", *"Slurm drained the node: jobs fail with hipErrorNoDevice", "enter")
        await _until(pilot, lambda: app.model.phase == "done" and not app.busy)
        shot("tui-triage.svg")
        await pilot.press("f")
        await pilot.pause()
        shot("tui-confirm.svg")
        await pilot.press("y")
        await _until(pilot, lambda: not app.busy and any(f.verify for f in app.model.fixes.values()))
        shot("tui-fixed.svg")
        await pilot.press("n", *"modprobe fixed it; node resumed in Slurm", "enter")
        await pilot.press("p")
        await _until(pilot, lambda: type(app.screen).__name__ == "PostmortemScreen")
        shot("tui-postmortem.svg")
        await pilot.press("escape", "q")
    text = render_postmortem(read_journal(session.journal.path)).replace(incidents, "~/.local/share/rocmdoctor/incidents")
    (DOCS / "postmortem-sample.md").write_text(
        f"<!-- Produced by docs/images/make_tui_screenshots.py from a TUI session on {TARGET}:\n"
        "     triage, one note, the proposed fix approved and verified, a second note. Unedited. -->\n\n" + text)


if __name__ == "__main__":
    asyncio.run(main())
