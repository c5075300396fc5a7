"""The incident journal: every triage and every TUI session is an incident,
and everything that happens in it is appended to a JSON Lines file.

Why JSON Lines, one `write` + `flush` + `fsync` per event: an on-call laptop
or a node can die mid-incident (kill -9, power, OOM killer). A line that
reached the file before that stays there, and a torn last line is the only
damage the reader has to forgive. The journal is the single source the
postmortem is rendered from, so it holds the same events as every other
front end (see rocmdoctor.engine.events), preceded by one `incident_opened` header.

Layout: `<incidents dir>/<id>/journal.jsonl`, where the incidents dir is
`--incidents-dir`, else $ROCMDOCTOR_INCIDENTS_DIR, else
`$XDG_DATA_HOME/rocmdoctor/incidents`.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from rocmdoctor import __version__
from rocmdoctor.errors import RocmdoctorError
from rocmdoctor.engine.events import Event, NoteAdded, event_from_dict

JOURNAL_NAME = "journal.jsonl"
HEADER_KIND = "incident_opened"
FORMAT_VERSION = 1


def incidents_dir(override: str | os.PathLike[str] | None = None) -> Path:
    if override:
        return Path(override)
    env = os.environ.get("ROCMDOCTOR_INCIDENTS_DIR")
    if env:
        return Path(env)
    from rocmdoctor.paths import data_dir

    return data_dir() / "incidents"


def new_incident_id(now: datetime | None = None) -> str:
    """Sortable by time, short enough to type, unique without coordination."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


@dataclass(frozen=True)
class IncidentHeader:
    id: str
    target: str
    user: str
    started: str
    rocmdoctor_version: str
    front_end: str
    command: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"event": HEADER_KIND, "format": FORMAT_VERSION, "id": self.id, "target": self.target,
                "user": self.user, "time": self.started, "rocmdoctor_version": self.rocmdoctor_version,
                "front_end": self.front_end, "command": self.command}


class Journal:
    """An open incident. Call it (or `.record`) with events: it is an EventSink.

    The file is created on the first event, so a triage that fails before it
    starts (unknown host, bad runbook) leaves no empty incident behind.
    Writes are serialised by a lock: TUI workers and the UI thread share one.
    A write error (disk full, read-only) is kept in `.error` instead of raised,
    because losing the journal must not stop the triage of a live incident.
    """

    def __init__(self, header: IncidentHeader, directory: Path) -> None:
        self.header = header
        self.directory = directory
        self.path = directory / JOURNAL_NAME
        self.error: str | None = None
        self._lock = threading.Lock()
        self._fh: Any = None
        self._closed = False
        self._created = False

    @property
    def id(self) -> str:
        return self.header.id

    @property
    def started(self) -> bool:
        """True once the journal file exists (the first event was written)."""
        return self._created

    def __call__(self, event: Event) -> None:
        self.record(event)

    def record(self, event: Event) -> None:
        self._write(event.to_dict())

    def note(self, text: str, *, host: str, author: str | None = None) -> NoteAdded:
        from rocmdoctor.transports.audit import local_user

        event = NoteAdded(host=host, text=text, author=author or local_user())
        self.record(event)
        return event

    def _write(self, data: dict[str, Any]) -> None:
        line = json.dumps(data, ensure_ascii=False, sort_keys=False) + "\n"
        with self._lock:
            try:
                if self._fh is None:
                    self._open()
                self._fh.write(line)
                self._fh.flush()
                os.fsync(self._fh.fileno())
                if self._closed:
                    # a worker that outlived its front end (a quit while a host hung): the
                    # event is kept, and no handle is left open behind the closed journal
                    self._fh.close()
                    self._fh = None
            except OSError as exc:
                if self.error is None:
                    self.error = f"{self.path}: {exc.strerror or exc}"

    def _open(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        self._fh = open(self.path, "a", encoding="utf-8")
        self._created = True
        if fresh:
            self._fh.write(json.dumps(self.header.to_dict(), ensure_ascii=False) + "\n")
        elif not _ends_with_newline(self.path):
            self._fh.write("\n")  # seal a line torn by a killed writer before appending

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


def open_incident(target: str, *, front_end: str = "triage", command: str = "",
                  base: str | os.PathLike[str] | None = None, user: str | None = None) -> Journal:
    from rocmdoctor.transports.audit import local_user
    from rocmdoctor.engine.events import utc_now

    root = incidents_dir(base)
    for _ in range(5):
        incident_id = new_incident_id()
        if not (root / incident_id).exists():
            break
    header = IncidentHeader(id=incident_id, target=target, user=user or local_user(), started=utc_now(),
                            rocmdoctor_version=__version__, front_end=front_end, command=command)
    return Journal(header, root / incident_id)


def reopen_incident(incident_id: str, base: str | os.PathLike[str] | None = None) -> Journal:
    """Append to an existing incident (e.g. a note typed after the triage)."""
    contents = load_incident(incident_id, base)
    return Journal(contents.header, contents.path.parent)


# -- reading ----------------------------------------------------------------

@dataclass
class JournalContents:
    path: Path
    header: IncidentHeader
    events: list[Event] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)   # "file:line: what", never fatal

    @property
    def id(self) -> str:
        return self.header.id

    @property
    def hosts(self) -> list[str]:
        seen: dict[str, None] = {}
        for e in self.events:
            seen.setdefault(e.host, None)
        return list(seen) or [self.header.target]

    @property
    def last_time(self) -> str:
        return self.events[-1].time if self.events else self.header.started


def read_journal(path: str | os.PathLike[str]) -> JournalContents:
    """Read a journal; a torn or unreadable line is reported in `.problems`, not raised."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RocmdoctorError(f"{path}: cannot read the journal ({exc.strerror or exc})",
                              "list incidents with `rocmdoctor incidents list`") from None
    lines = raw.split(b"\n")
    torn_tail = bool(lines) and lines[-1] != b""
    header: IncidentHeader | None = None
    events: list[Event] = []
    problems: list[str] = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        last = no == len(lines)
        try:
            data = json.loads(line.decode("utf-8"))
            if not isinstance(data, dict) or "event" not in data:
                raise ValueError("not an event object")
        except (ValueError, UnicodeDecodeError):
            what = "torn last line (the writer was killed mid-write), ignored" if last and torn_tail \
                else "not a JSON event, ignored"
            problems.append(f"{path}:{no}: {what}")
            continue
        if data["event"] == HEADER_KIND:
            header = header or _header(data)
            continue
        try:
            events.append(event_from_dict(data))
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"{path}:{no}: unreadable {data.get('event')!r} event ({exc}), ignored")
    if header is None:
        problems.append(f"{path}:1: no incident header; using the directory name as the id")
        header = IncidentHeader(id=path.parent.name, target=events[0].host if events else "?", user="?",
                                started=events[0].time if events else "", rocmdoctor_version="?",
                                front_end="?")
    return JournalContents(path, header, events, problems)


def _header(d: dict[str, Any]) -> IncidentHeader:
    return IncidentHeader(id=str(d.get("id", "")), target=str(d.get("target", "")), user=str(d.get("user", "")),
                          started=str(d.get("time", "")), rocmdoctor_version=str(d.get("rocmdoctor_version", "")),
                          front_end=str(d.get("front_end", "")), command=str(d.get("command", "")))


def incident_ids(base: str | os.PathLike[str] | None = None) -> list[str]:
    root = incidents_dir(base)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / JOURNAL_NAME).is_file())


def resolve_id(incident_id: str, base: str | os.PathLike[str] | None = None) -> Path:
    """An exact id, a unique prefix of one, or `latest`: the journal path."""
    ids = incident_ids(base)
    root = incidents_dir(base)
    if incident_id == "latest" and ids:
        return root / ids[-1] / JOURNAL_NAME
    if incident_id in ids:
        return root / incident_id / JOURNAL_NAME
    matches = [i for i in ids if i.startswith(incident_id)] if incident_id else []
    if len(matches) == 1:
        return root / matches[0] / JOURNAL_NAME
    if len(matches) > 1:
        raise RocmdoctorError(f"incident id '{incident_id}' is ambiguous ({len(matches)} match)",
                              f"type more of it: {', '.join(matches[:3])} ...")
    where = f"no incident '{incident_id}' in {root}" if ids else f"no incidents in {root}"
    raise RocmdoctorError(where, "list them with `rocmdoctor incidents list` "
                                 "(or point --incidents-dir / ROCMDOCTOR_INCIDENTS_DIR elsewhere)")


def load_incident(incident_id: str, base: str | os.PathLike[str] | None = None) -> JournalContents:
    return read_journal(resolve_id(incident_id, base))


def load_all(base: str | os.PathLike[str] | None = None) -> Iterable[JournalContents]:
    root = incidents_dir(base)
    for i in incident_ids(base):
        yield read_journal(root / i / JOURNAL_NAME)


# -- front ends ---------------------------------------------------------------

def incident_for_request(request: Any, *, front_end: str = "triage",
                         base: str | os.PathLike[str] | None = None) -> Journal:
    """The incident a `triage` (or TUI session) of a TriageRequest opens; the
    command line is rebuilt from the request so the postmortem can quote it."""
    import shlex

    argv = ["rocmdoctor", front_end, request.target]
    argv += [f"--runbook={r}" for r in request.runbooks]
    argv += [f"--var={k}={v}" for k, v in request.vars.items()]
    argv += [flag for flag, on in (("--fix", getattr(request, "fix", False)),
                                   ("--dry-run", getattr(request, "dry_run", False)),
                                   ("--from=" + str(getattr(request, "bundle", "") or ""),
                                    bool(getattr(request, "bundle", None)))) if on]
    return open_incident(request.target, front_end=front_end, command=shlex.join(argv), base=base)


def incident_footer(journal: Journal) -> str:
    """The last line of a triage: where the journal is and how to get the draft."""
    if journal.error:
        return f"incident journal NOT written: {journal.error}"
    if not journal.started:
        return ""
    return f"incident {journal.id} journaled; postmortem draft: rocmdoctor postmortem {journal.id}"
