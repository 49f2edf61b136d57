"""The one small interface every agent's importer meets, and the types it hands the core.

An agent is an `Agent`: its names (its key, the origin its logs name and the label people
read, all three from `names`; the prefix of its task ids), where it keeps its sessions on this
computer, which files below a folder may be sessions, and how a file becomes nodwyn's
records. The shared core (`sources` finds files, `sync` keeps the `.imp` state and the log,
`prices` prices tokens) does everything else (ADR 0018).

Two shapes of source:
- append-only lines (`whole = False`): the core feeds each new whole line to the agent's
  `Parser` (`feed(n, line, out)`, `finish(live, out)`, its memory in `parser.carry`, a msgspec
  Struct saved in `.imp`), so a file imported in two halves gives the records of the file
  imported at once;
- sources rewritten whole (`whole = True`: a JSON document, a database): the agent's `read`
  parses the whole source into sessions of records, every record with a stable `src`; the
  core appends the records the log does not hold yet (matched by `src`) and refuses a source
  that no longer holds what was imported from it, keeping the log.

Invariants: an agent only turns its format into records; it never writes a log. A file it
does not know is refused with a one-line reason (`recognise` / `read` return a str), never
half-read. Reading a source never changes it (databases are opened read-only). This module
imports no agent and no part of the core, so every agent and the registry import it and
nothing imports in a circle (ADR 0036).
"""

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import msgspec

from ..log import records as r
from . import names

LIVE_FOR = (
    300.0  # seconds: a source changed this recently may still be mid-response (tests narrow it)
)


class Found(msgspec.Struct, frozen=True):
    """The task a source session becomes, and the session's own id."""

    task: str
    session: str


class Session(msgspec.Struct, frozen=True):
    """One session read whole from a source: its task and all its records, in order."""

    found: Found
    records: list[r.Known]


class Parser(Protocol):
    """The fold of an append-only source (see the module docstring)."""

    carry: Any

    def feed(self, n: int, raw: bytes, out: list) -> None: ...

    def finish(self, live: bool, out: list) -> None: ...


class Agent:
    """One agent's importer. Subclasses set the names and override what their format needs."""

    name = ""  # its key: the word in `nodwyn import NAME`, settings and the page: "gemini"
    prefix = ""  # task ids: prefix + the source's session id ("gm-")
    whole = False  # True: the source is rewritten whole and read by `read`
    resume = ""  # the agent's own command that resumes a session, {id} its id (reading/resume.py)
    no_resume = ""  # or why there is none
    limits = 0  # the version of its limit records (ADR 0037): a log of a lower one gets them
    # below a folder a person names, the files of these types not named as sessions are read by
    # their content (a copy kept as `copy1.jsonl`): sources.by_content
    content: tuple[str, ...] = (".jsonl", ".json")

    @property
    def origin(self) -> str:
        """`origin.tool` in the logs it makes: "gemini-cli"."""
        return names.origin(self.name)

    @property
    def label(self) -> str:
        """What people read: "Gemini CLI"."""
        return names.label(self.name)

    def roots(self) -> list[Path]:
        """The folders where the agent keeps its sessions on this computer (existing or not)."""
        return []

    def sources(self, folder: Path) -> Iterator[Path]:
        """The files below `folder` that may be sessions, by name only (cheap)."""
        return folder.rglob("*.jsonl")

    def companions(self, path: Path) -> list[Path]:
        """Other files whose change changes the session (a title file, sub-agents, a WAL)."""
        return []

    def recognise(self, path: Path) -> Found | str:
        """The session an append-only file holds, or why it is not one of this agent's."""
        return f"not a {self.label} session"

    def parser(self, path: Path, found: Found, carry: msgspec.Raw | None) -> Parser:
        raise NotImplementedError(f"{self.label} sources are read whole")

    def read(self, path: Path, live: bool) -> list[Session] | str:
        """Every session a source rewritten whole holds, or why it is refused."""
        return f"{self.label} sources are append-only lines"

    def peek(self, path: Path) -> list[Found] | None:
        """Whole sources: the sessions a source holds, known cheaply (without parsing it), so an
        unchanged source is passed over unread; None when only `read` can tell."""
        return None

    def task_id(self, session: str) -> str:
        return task_id(self.prefix, session)


def task_id(prefix: str, session: str) -> str:
    """A task id from a source session id: only [A-Za-z0-9_-], at most 120 characters."""
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_-") else "-" for ch in session)
    return prefix + safe[:120]


def home_of(variable: str, *default: str) -> Path:
    """A root an environment variable may move, else `~/<default...>`."""
    value = os.environ.get(variable)
    return Path(value) if value else Path.home().joinpath(*default)


PROBE = 64 * 1024  # bytes of a file's opening read to tell whose session it is


def blank_or_binary(opening: bytes) -> str:
    """Why a file's opening can be no agent's session (blank, or binary), else "": the one probe
    every importer makes before it looks at its own format."""
    if not opening.strip():
        return "empty file"
    if b"\0" in opening:
        return "not a text file (binary content)"
    return ""


def opening_of(path: Path, size: int = PROBE, refused: str = "") -> bytes | str:
    """A file's first `size` bytes, or why it can be no agent's session (see `blank_or_binary`): a
    binary file named as what it is ("not a Copilot CLI session: a SQLite database", the
    agent's words in `refused`)."""
    with open(path, "rb") as handle:
        opening = handle.read(size)
    why = blank_or_binary(opening)
    if why and b"\0" in opening:
        from . import kinds  # names files by their name and start; imports nothing of ours

        return f"{refused or 'not an agent session'}: {kinds.named(path, opening)}"
    return why or opening


def whole_lines(opening: bytes, size: int = PROBE) -> list[bytes]:
    """The lines of a file's opening read by `opening_of`, less the last when the read cut it."""
    lines = opening.split(b"\n")
    return lines[:-1] if len(opening) == size else lines


def first_line(path: Path, label: str, size: int = PROBE):
    """A JSON-lines file's first line that is not blank, decoded, or why it is no session of
    `label`'s."""
    opening = opening_of(path, size, f"not a {label} session")
    if isinstance(opening, str):
        return opening
    line = next(line for line in opening.split(b"\n") if line.strip())
    try:
        return msgspec.json.decode(line)
    except msgspec.DecodeError:
        return f"not a {label} session (its first line is not JSON)"


def decoded(value):
    """A value its agent kept as JSON text (a call's arguments), as what it holds; else as is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


SESSION_ID = re.compile(rb'"sessionId":\s*"([^"\\]+)"')


def session_near_top(agent: "Agent", path: Path) -> list[Found] | None:
    """A `peek` for JSON that names its `sessionId` early: enough to pass an unchanged file over
    unread."""
    with open(path, "rb") as handle:
        found = SESSION_ID.search(handle.read(4096))
    if not found:
        return None
    session = found.group(1).decode(errors="replace")
    return [Found(agent.task_id(session), session)]


def torn(error: Exception, live: bool) -> str:
    """Why a JSON document rewritten whole was not read, in one line: cut short while its agent
    may still be writing it, or not JSON, and where it breaks."""
    found = re.search(r"\(byte (\d+)\)", str(error))
    where = f" at byte {found.group(1)}" if found else ""
    if "truncated" in str(error):
        where = " off before its end"
    if live:
        return f"cut short{where} (its agent may be writing it): read again when whole"
    return f"not valid JSON: it breaks{where}"


def carry_of(raw: msgspec.Raw | None, kind: type):
    """A parser's saved memory, or None to start from the top."""
    return None if raw is None else msgspec.json.decode(raw, type=kind)
