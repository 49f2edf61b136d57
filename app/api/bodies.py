"""The bodies the routes take and give, as msgspec Structs (STYLE 4, STYLE 6).

A body a route takes forbids unknown fields, so a misspelt one is a 400, not silently
ignored; the answers are what the page reads (its contract is the HTTP API alone).
"""

import msgspec


class TaskList(msgspec.Struct, frozen=True):
    tasks: msgspec.Raw  # list[TaskInfo], joined as JSON from the catalogue's ready rows


class Cards(msgspec.Struct, frozen=True):
    cards: list


class Done(msgspec.Struct, frozen=True):
    ok: bool = True


class Title(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    title: str


class ImportFolder(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    agent: str = msgspec.field(name="tool")  # the agent's key, as the page sends it
    path: str


class Archived(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    archived: bool


class Star(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    starred: bool = True
    note: str = ""


class StarredList(msgspec.Struct, frozen=True):
    turns: list


class TaskStars(msgspec.Struct, frozen=True):
    turns: dict[int, str]  # turn -> note


class SummariesAsked(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The tasks to summarize (ids, or a project folder), and for a run the estimate's token."""

    tasks: list[str] = []
    project: str = ""
    token: str = ""


class SshAdd(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An SSH machine to add (app/machines/ssh.py): its host, `AGENT=PATH` folders, a name."""

    host: str
    folders: list[str] = []
    name: str = ""


class SshPull(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Which SSH machine to pull now: its id, or "" for every one."""

    id: str = ""


class LiveStates(msgspec.Struct, frozen=True):
    """The tasks' live states (live/board.py), those that need an answer first."""

    states: list


class HooksChange(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Settings > Agents: put an agent's hooks in (true) or take them out (false)."""

    install: bool
