"""The word index's state (`<data>/index/state.json`): each log's size and mtime, project,
title and archive flag as last indexed, the index's id and options, and how far into the change
journal it got (index.py's docstring says how a refresh uses it).

Split from index.py (ADR 0045), which reads these names back for its callers.
"""

from pathlib import Path

import msgspec
from msgspec import Struct

from ...log import tmpfiles
from . import tokens

FORMAT = tokens.FORMAT


class Seen(Struct, kw_only=True):
    size: int
    mtime_ns: int
    problems: int = 0
    project: str = ""
    title: str = ""
    archived: bool = False
    closes: int = 0  # its close summaries (catalogue.Summary.closes)
    ran_on: str = ""  # the machine it ran on (catalogue.Summary.ran_on)


class State(Struct, kw_only=True):
    format: int = FORMAT
    id: str = ""
    tool_output: bool = True
    tasks: dict[str, Seen] = {}
    journal: str = ""  # the change journal's generation, and how far into it the index got
    journal_at: int = 0
    checked_ns: int = 0  # when every log was last looked at (changes.py)


_state_encoder = msgspec.json.Encoder()
_state_decoder = msgspec.json.Decoder(State)
# JSON; the state of an index made before is read once from its old msgpack file.
STATE = "state.json"
_OLD_STATE = "state.msgpack"


def folder(root: Path) -> Path:
    return root / "index"


_states: dict[Path, tuple[tuple[int, int], State]] = {}


def load_state(root: Path, shared: bool = False) -> State | None:
    """The index's state; `shared` gives this process's decoded copy when the file has not
    changed since (a search reads it on every call; a refresh that changes it decodes anew)."""
    file = folder(root) / STATE
    try:
        found = file.stat()
        stamp = (found.st_size, found.st_mtime_ns)
        known = _states.get(root)
        if shared and known is not None and known[0] == stamp:
            return known[1]
        state = _state_decoder.decode(file.read_bytes())
    except FileNotFoundError:
        return _old_state(root)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if state.format != FORMAT:
        return None
    if shared:
        _states[root] = (stamp, state)
    return state


def _old_state(root: Path) -> State | None:
    """The state of an index made before the state was JSON (state.msgpack), or None."""
    try:
        state = msgspec.msgpack.decode((folder(root) / _OLD_STATE).read_bytes(), type=State)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return state if state.format == FORMAT else None


def save_state(root: Path, state: State) -> None:
    file = folder(root) / STATE
    tmpfiles.sweep(file.parent)  # the next writer of the folder: what a crash left
    tmpfiles.replace(file, _state_encoder.encode(state), "the word index's state")
    (folder(root) / _OLD_STATE).unlink(missing_ok=True)
