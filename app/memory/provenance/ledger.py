"""`sessions/<id>.lines`: what one log's edits, moves and commits were, as line keys.

Provenance: for each edit call of any agent (reading/edits.py reads them as
diffs), its hunks as marks and a key per line (crc32 of the line with its white space
collapsed: `key`); the renames its shell calls made (`git mv a b`, `mv a b`, apply_patch's
`Move to`); the commits its tool output names (`[main 0afe44b] message`, and a `git log` of
the same turn giving the full hash); and per turn its time and the prompt's first words.

Invariants: derived from the log, deletable, rebuilt when its format or the log's last line it
ends with does not match (checked like a `.mem`: a log that only grew is read on from where the
ledger ended); written whole to a temporary file renamed into place. A failed edit (its result
an error) is kept with ok=False and never counts as having written anything.
"""

import contextlib
import os
import re
import shlex
import zlib
from pathlib import Path

import msgspec
from msgspec import Struct

from ...log import logfile, records, tmpfiles
from ...reading import edits as diffs
from ..cards.fold import SHELLS, call_input, command_of
from ..cards.frames import crc_of, holds
from ..cards.headline import one_line

FORMAT = 2  # 2: each edit's byte offset in its log
MAGIC = b"nodwyn-lines 2\n"
ASKED = 80  # characters of a prompt kept: its first words
COMMIT_LINE = re.compile(
    r"^\[(?P<branch>[^\]\s]+)(?: \(root-commit\))? (?P<sha>[0-9a-f]{7,40})\] ?(?P<msg>.*)$", re.M
)
LOG_LINE = re.compile(r"^commit ([0-9a-f]{40})\b", re.M)


def key(line: str) -> int:
    """A line's key: white space at its ends and inside it collapsed (a re-indent or a
    formatter's spacing is the same line), crc32 of the rest."""
    return zlib.crc32(" ".join(line.split()).encode("utf-8", "surrogatepass"))


class Hunk(Struct, array_like=True, frozen=True):
    marks: str  # " ", "+" or "-" per line
    keys: list[int]


class Edit(Struct, array_like=True, kw_only=True):
    seq: int  # the reply's
    turn: int  # the turn's first seq (0: none)
    at: str
    call: str
    tool: str
    path: str  # absolute where the log's folder made it so
    op: str  # write / add / update / delete
    hunks: list[Hunk]
    ok: bool = True
    every: bool = False  # Claude's replace_all
    model: str = ""
    agent: str = ""
    where: int = -1  # the byte offset of its reply in the log: its text, read when needed


class Move(Struct, array_like=True, frozen=True):
    seq: int
    turn: int
    at: str
    src: str
    dst: str


class Commit(Struct, array_like=True, kw_only=True):
    sha: str
    seq: int
    turn: int
    at: str
    branch: str = ""
    message: str = ""
    full: str = ""  # the whole hash, where a git log of the same turn shows it


class Turn(Struct, array_like=True, frozen=True):
    seq: int
    at: str
    asked: str


class Ledger(Struct, kw_only=True):
    format: int = FORMAT
    end: int = 0
    line_start: int = -1
    line_crc: int = 0
    project: str = ""
    agent: str = ""  # the tool that wrote the log (claude-code, codex...)
    model: str = ""
    turns: list[Turn] = []
    edits: list[Edit] = []
    moves: list[Move] = []
    commits: list[Commit] = []
    pending: dict[str, list[int]] = {}  # call id -> its edits, until its result says
    shells: dict[str, str] = {}  # call id -> its command, until its result
    turn: int = 0
    turn_at: str = ""


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Ledger)


def path_of(log: Path) -> Path:
    return log.with_suffix(".lines")


def load(log: Path) -> Ledger:
    """The ledger beside a log as saved (empty when missing, damaged or of another format)."""
    try:
        data = path_of(log).read_bytes()
    except OSError:
        return Ledger()
    if not data.startswith(MAGIC):
        return Ledger()
    try:
        found = _decoder.decode(data[len(MAGIC) :])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return Ledger()
    return found if found.format == FORMAT else Ledger()


def save(log: Path, ledger: Ledger) -> None:
    with contextlib.suppress(FileNotFoundError):  # the task was deleted meanwhile
        tmpfiles.replace(path_of(log), [MAGIC, _encoder.encode(ledger)])


def current(log: Path, ledger: Ledger | None = None) -> tuple[Ledger, bool]:
    """The log's ledger brought up to date (read on from where it ended when the log still
    holds that line, else from the start), and whether it changed."""
    ledger = ledger if ledger is not None else load(log)
    with open(log, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == ledger.end and holds(handle, ledger.line_start, ledger.end, ledger.line_crc):
            return ledger, False
        if not holds(handle, ledger.line_start, ledger.end, ledger.line_crc):
            ledger = Ledger()
    last = (ledger.line_start, ledger.end)
    for start, end, record in logfile.read(log, ledger.end):
        feed(ledger, record, start)
        last = (start, end)
    with open(log, "rb") as handle:
        ledger.line_start, ledger.end = last
        ledger.line_crc = crc_of(handle, *last) or 0 if last[0] >= 0 else 0
    return ledger, True


def feed(ledger: Ledger, record, where: int = -1) -> None:
    match record:
        case records.SessionStart():
            ledger.project, ledger.agent = record.project, record.origin.tool
            ledger.model = record.model
        case records.Message() if record.agent is None:
            ledger.turn, ledger.turn_at = record.seq, record.at
            ledger.turns.append(
                Turn(seq=record.seq, at=record.at, asked=one_line(record.text, ASKED))
            )
            ledger.shells = {}
        case records.Reply():
            for call in record.calls:
                _call(ledger, record, call, where)
        case records.Result():
            _result(ledger, record)


def _call(ledger: Ledger, reply, call, where: int = -1) -> None:
    data = call_input(call.input)
    tool, given = call.tool, data
    if call.tool in SHELLS:
        command = command_of(call.input)
        if "*** Begin Patch" in command:  # Codex's apply_patch run through the shell
            tool, given = "apply_patch", command[command.index("*** Begin Patch") :]
        else:
            ledger.shells[call.id] = command
            return
    diff = diffs.diff_of(tool, given)
    if diff is None:
        return
    made = []
    for file in diff["files"]:
        path = file["path"]
        if " → " in path:
            src, _, path = path.partition(" → ")
            _move(ledger, reply, src, path)
        hunks = [_hunk(hunk["lines"]) for hunk in file["hunks"]]
        made.append(len(ledger.edits))
        ledger.edits.append(
            Edit(
                seq=reply.seq,
                turn=ledger.turn,
                at=reply.at,
                call=call.id,
                tool=call.tool,
                path=_absolute(ledger, path),
                op=file["op"],
                hunks=hunks,
                every=bool(isinstance(data, dict) and data.get("replace_all")),
                model=reply.model or ledger.model,
                agent=reply.agent or "",
                where=where,
            )
        )
    ledger.pending[call.id] = made


def _hunk(lines: list) -> Hunk:
    return Hunk(marks="".join(line[0] for line in lines), keys=[key(line[1]) for line in lines])


def _move(ledger: Ledger, record, src: str, dst: str) -> None:
    src, dst = _absolute(ledger, src), _absolute(ledger, dst)
    ledger.moves.append(Move(seq=record.seq, turn=ledger.turn, at=record.at, src=src, dst=dst))


def _result(ledger: Ledger, record) -> None:
    made = ledger.pending.pop(record.call, None)
    if made is not None and (record.error or record.exit not in (None, 0)):
        for n in made:
            ledger.edits[n].ok = False
    command = ledger.shells.pop(record.call, None)
    if command is not None and not record.error and record.exit in (None, 0):
        for src, dst in moves_in(command):
            _move(ledger, record, src, dst)
    if record.output:
        _commits(ledger, record)


def _commits(ledger: Ledger, record) -> None:
    for found in COMMIT_LINE.finditer(record.output):
        ledger.commits.append(
            Commit(
                sha=found["sha"],
                seq=record.seq,
                turn=ledger.turn,
                at=record.at,
                branch=found["branch"],
                message=one_line(found["msg"], 120),
            )
        )
    for full in LOG_LINE.findall(record.output):  # a git log of the same turn: the whole hash
        for commit in reversed(ledger.commits):
            if commit.turn != ledger.turn:
                break
            if full.startswith(commit.sha):
                commit.full = full


def moves_in(command: str) -> list[tuple[str, str]]:
    """(source, target) of each `mv a b` or `git mv a b` of a shell command (`&&`, `;` and
    newlines split it); options skipped; a move of several files into a folder is left out."""
    found = []
    for part in re.split(r"&&|\|\||;|\n", command):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        if words[:2] == ["git", "mv"]:
            words = words[1:]
        if not words or words[0] != "mv":
            continue
        operands = [word for word in words[1:] if not word.startswith("-")]
        if len(operands) == 2:
            src, dst = operands
            if dst.endswith("/"):
                dst += src.rstrip("/").rsplit("/", 1)[-1]
            found.append((src, dst))
    return found


def _absolute(ledger: Ledger, path: str) -> str:
    path = path.replace("\\", "/")
    if path.startswith("/") or re.match(r"^[A-Za-z]:/", path) or not ledger.project:
        return path
    return ledger.project.rstrip("/").replace("\\", "/") + "/" + path.removeprefix("./")
