"""GitHub Copilot CLI as a registered agent: `~/.copilot/session-state/` ($COPILOT_HOME).

Two layouts are read, both append-only JSONL of the same events (`events`):
`session-state/<id>/events.jsonl` (1.0.11+), whose `workspace.yaml` beside it gives the
session's name and cwd, and the flat `session-state/<id>.jsonl` (0.0.342 to 1.0.10), which
has neither. The older `history-session-state/session_*.json` (before 0.0.342) is refused:
its layout is not known well enough to read it whole (ADR 0020).
"""

import re
from pathlib import Path

import msgspec

from .. import kinds
from ..agent import PROBE, Agent, Found, carry_of, home_of, opening_of, whole_lines

_any = msgspec.json.Decoder().decode


class Copilot(Agent):
    name = "copilot"
    resume = "copilot --resume {id}"
    prefix = "cp-"
    content = (".jsonl",)

    def roots(self) -> list[Path]:
        return [home_of("COPILOT_HOME", ".copilot") / "session-state"]

    def sources(self, folder: Path):
        for path in folder.rglob("*.jsonl"):
            if path.name == "events.jsonl" or path.parent.name == "session-state":
                yield path

    def companions(self, path: Path) -> list[Path]:
        return [path.parent / "workspace.yaml"] if path.name == "events.jsonl" else []

    def recognise(self, path: Path) -> Found | str:
        if path.suffix == ".json" and path.name.startswith("session_"):
            return (
                "Copilot CLI's legacy history-session-state file (before 0.0.342): not read, "
                "its layout is not known; resuming it in Copilot CLI moves it to session-state"
            )
        opening = opening_of(path, refused="not a Copilot CLI session")
        return opening if isinstance(opening, str) else _verdict(self, opening, path)

    def parser(self, path: Path, found: Found, carry: msgspec.Raw | None):
        from . import events  # loaded by the first file it reads: listing the agents loads none

        fields = workspace(path)
        title = " ".join(fields.get("name", "").split())[:120]
        cwd = fields.get("cwd", "") or _trusted_folder(path)
        return events.Parser(str(path), carry_of(carry, events.Carry), title=title, cwd=cwd)


def _verdict(agent: Copilot, opening: bytes, path: Path) -> Found | str:
    for raw in whole_lines(opening):
        if not raw.strip():
            continue
        try:
            event = _any(raw)
        except msgspec.DecodeError:
            return f"not a Copilot CLI session: {kinds.named(path, opening)}"
        if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
            return "not a Copilot CLI session (no {type, data} events)"
        if event.get("type") != "session.start":
            if isinstance(event.get("type"), str) and "." in event["type"] and "parentId" in event:
                return "Copilot CLI events without their session.start line: not a whole session"
            return "not a Copilot CLI session (no session.start event)"
        session = event["data"].get("sessionId")
        if not isinstance(session, str) or not session:
            return "a Copilot CLI session.start without a sessionId"
        return Found(agent.task_id(session), session)
    return "empty file"


_TRUSTED = re.compile(rb'"message":\s*"Folder (.+?) has been added to trusted folders\.?"')


def _trusted_folder(path: Path) -> str:
    """The flat layout has no cwd: the folder the person trusted at the start is the one."""
    with open(path, "rb") as handle:
        found = _TRUSTED.search(handle.read(PROBE))
    if not found:
        return ""
    try:
        return _any(b'"' + found.group(1) + b'"')
    except msgspec.DecodeError:
        return ""


def workspace(path: Path) -> dict[str, str]:
    """The flat `key: value` lines of the session's `workspace.yaml` (a scalar per key)."""
    if path.name != "events.jsonl":
        return {}
    try:
        text = (path.parent / "workspace.yaml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key and not key[0].isspace() and not key.startswith("#"):
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            fields[key.strip()] = value
    return fields


AGENT = Copilot()
