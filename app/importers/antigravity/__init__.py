"""Google Antigravity as a registered agent: `~/.gemini/antigravity*/brain/<id>/.../logs/`.

Each conversation's steps are appended to `.system_generated/logs/transcript.jsonl`, and the
same steps untruncated, with their arguments decoded, to `transcript_full.jsonl` beside it:
the full one is read when it is there, the other when it is alone (`steps` reads both). The
conversation id is its `brain/<id>` folder (else, for a copied file, a hash of its first
step); its title is the one Antigravity keeps in `agyhub_summaries_proto.pb` (a protobuf read
for that one field); its folder is the first one its calls work in (`steps`). A sub-agent
is a conversation of its own, in its own brain folder, and is imported as its own task.
Docs: ADR 0021.
"""

import hashlib
import re
from pathlib import Path

import msgspec

from .. import kinds
from ..agent import Agent, Found, carry_of, home_of, opening_of

NAMES = ("transcript_full.jsonl", "transcript.jsonl")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_any = msgspec.json.Decoder().decode


class Antigravity(Agent):
    name = "antigravity"
    no_resume = "Antigravity resumes a conversation from its own Agent Manager, not from a command"
    prefix = "ag-"
    content = (".jsonl",)

    def roots(self) -> list[Path]:
        # Antigravity keeps its folders in Gemini CLI's `~/.gemini`; no variable of its own is
        # known, so GEMINI_CLI_HOME, which moves that folder for Gemini CLI, moves them too
        gemini = home_of("GEMINI_CLI_HOME") / ".gemini"
        return [gemini / "antigravity" / "brain", gemini / "antigravity-cli" / "brain"]

    def sources(self, folder: Path):
        for path in folder.rglob("transcript*.jsonl"):
            if path.name == NAMES[0] or (
                path.name == NAMES[1] and not (path.parent / NAMES[0]).exists()
            ):
                yield path

    def companions(self, path: Path) -> list[Path]:
        root = _root(path)
        return [root / "agyhub_summaries_proto.pb"] if root else []

    def recognise(self, path: Path) -> Found | str:
        if path.name == NAMES[1] and (path.parent / NAMES[0]).is_file():
            return (
                "a second copy of the conversation in transcript_full.jsonl beside it, "
                "which is read instead"
            )
        opening = opening_of(path, refused="not an Antigravity transcript")
        if isinstance(opening, str):
            return opening
        first = next((line for line in opening.split(b"\n") if line.strip()), b"")
        try:
            step = _any(first)
        except msgspec.DecodeError:
            return f"not an Antigravity transcript: {kinds.named(path, opening)}"
        if (
            not isinstance(step, dict)
            or not {"step_index", "source", "type", "status"} <= step.keys()
        ):
            return (
                "not an Antigravity transcript (no steps with step_index, source, type and status)"
            )
        session = _conversation(path) or "h" + hashlib.blake2b(first, digest_size=8).hexdigest()
        return Found(self.task_id(session), session)

    def parser(self, path: Path, found: Found, carry: msgspec.Raw | None):
        from . import steps  # loaded by the first file it reads: listing the agents loads none

        title = titles(path).get(found.session, "")
        return steps.Parser(str(path), found.session, carry_of(carry, steps.Carry), title)


def _conversation(path: Path) -> str:
    """`brain/<id>/.system_generated/logs/transcript.jsonl` -> <id>."""
    parts = path.parts
    if (
        len(parts) >= 5
        and parts[-2] == "logs"
        and parts[-5] == "brain"
        and _UUID.fullmatch(parts[-4])
    ):
        return parts[-4]
    return ""


def _root(path: Path) -> Path | None:
    return path.parents[4] if _conversation(path) else None


def titles(path: Path) -> dict[str, str]:
    """conversation id -> title, from `agyhub_summaries_proto.pb` beside `brain/`."""
    root = _root(path)
    try:
        data = (root / "agyhub_summaries_proto.pb").read_bytes() if root else b""
    except OSError:
        return {}
    found = {}
    try:
        for field, entry in _fields(data):
            if field != 1 or not isinstance(entry, bytes):
                continue
            inner = dict(_fields(entry))
            summary = dict(_fields(inner[2])) if isinstance(inner.get(2), bytes) else {}
            if isinstance(inner.get(1), bytes) and isinstance(summary.get(1), bytes):
                found[inner[1].decode()] = summary[1].decode()
    except (ValueError, IndexError, UnicodeDecodeError):
        return {}  # not the layout read here: no titles rather than wrong ones
    return found


def _fields(data: bytes):
    """(field number, value) of a protobuf message: ints for varints, bytes for the rest."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        kind = key & 7
        if kind == 0:
            value, at = _varint(data, at)
        elif kind == 2:
            size, at = _varint(data, at)
            value, at = data[at : at + size], at + size
        elif kind in (1, 5):
            value, at = None, at + (8 if kind == 1 else 4)
        else:
            raise ValueError(f"protobuf wire type {kind}")
        yield key >> 3, value


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


AGENT = Antigravity()
