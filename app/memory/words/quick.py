"""A search by words in a new process without msgspec (issue 16): `nodwyn memory search --mode
words` with no app running, when the word index is current, answered from files the index's
one writer keeps in forms json's C scanner reads (log/plain.py, as running.py reads the app's
answers): the index's state (`index/state.json`), each log's finished turns' heads (`.heads`,
beside its `.mem`) and the log lines of the hits. msgspec's import and its typing machinery
were 17 of a 30 ms search.

It answers only what it can answer exactly as the full search does (search.py, heads.py):
`answer()` gives None, and the caller searches in full, whenever anything is other than plain:
the logs not scrubbed by today's rules, the settings unreadable, the index missing, of another
format or tool-output setting, a change noted in the journal or the periodic full check due,
a scope by project, a line that is not where the index says or that log/plain.py cannot read
as records.decode does, bad input. A turn's head comes from the `.heads` when it is there and
still the log's, else from the turn's lines as heads.turn_card reads them. Tests compare its
answers with the full search's over hand-written logs and the real corpus.
"""

import os
import time

from ...log import journal
from ...log.plain import RECORDS, NotPlain, decoded_record, plain
from ...log.redact import redact
from ...log.redact_rules import RULES, scrubbed_rules
from ..cards import frames
from ..cards.heading import CLOSING, WORK, ending, head, is_live
from . import matching, terms, words

HEADS = 8 << 20  # bytes of a .heads read; a larger one is left to heads.py


def answer(root: str, text: str, scope: str, task: str | None, limit: int, mode: str | None):
    """The full search's answer (FusedResults as plain data) for `text` in `scope` ("all",
    or "task" with `task`), when it is a search by words (`mode`, else the setting), or None:
    to be searched in full (see the module's docstring)."""
    try:
        return _answer(root, text, scope, task, limit, mode)
    except (NotPlain, OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None


def _answer(root: str, text: str, scope: str, task: str | None, limit: int, mode) -> dict:
    if scope not in ("all", "task") or (scope == "task" and not task):
        raise NotPlain("a scope by project, or none")
    if not text.strip() or not 1 <= limit <= matching.MAX_LIMIT or scrubbed_rules(root) < RULES:
        raise NotPlain("bad input, or the logs are to be scrubbed first")
    state = current_state(root, mode)
    tasks = state["tasks"]
    if task is not None and (task not in tasks or not os.path.exists(log_path(root, task))):
        raise NotPlain("no such task: the full search says so")
    scope = None if scope == "all" else {task}
    asked = words.query_terms(text)
    found = []
    fields = words.query_fields(text)
    if fields["parts"]:
        import tantivy

        index = tantivy.Index.open(os.path.join(root, "index"))
        searcher = index.searcher()
        folders = terms.folders_of((name, seen["project"]) for name, seen in tasks.items())
        query = terms.query(searcher, index.schema, fields, scope, folders)
        found = matching.ranked(searcher, query, tasks, scope, limit)
    incomplete = sorted(name for name, seen in tasks.items() if seen["problems"])
    return {
        "turns": grouped(root, state, found, set(asked)),
        "incomplete": [name for name in incomplete if scope is None or name in scope],
        "terms": asked, "mode": "words", "note": "", "covered": 0, "searched": 0,
    }  # fmt: skip


def current_state(root: str, mode: str | None) -> dict:
    """The index's state when the index is current for a search by words: else NotPlain."""
    tool_output, setting = search_settings(root)
    if (mode or setting) != "words":
        raise NotPlain("a search by meaning")
    with open(os.path.join(root, "index", "state.json"), "rb") as file:
        state = plain(file.read())
    if state["format"] != words.FORMAT or state["tool_output"] != tool_output:
        raise NotPlain("the index is of another format or setting")
    if not os.path.exists(os.path.join(root, "index", "meta.json")):
        raise NotPlain("no index")
    if time.time_ns() - state["checked_ns"] > journal.FULL_EVERY_NS:
        raise NotPlain("a full check of the logs is due")
    if not journal.quiet(root, state["journal"], state["journal_at"]):
        raise NotPlain("a log changed since the index last looked")
    return state


def search_settings(root: str) -> tuple[bool, str]:
    """(search_tool_output, search_mode) of the settings (defaults when there are none); a
    file whose two fields are not as settings.py has them is left to it (it sets it aside)."""
    try:
        with open(os.path.join(root, "settings.json"), "rb") as file:
            found = plain(file.read())
    except FileNotFoundError:
        return True, "both"
    tool_output, mode = found.get("search_tool_output", True), found.get("search_mode", "both")
    if tool_output not in (True, False) or mode not in ("words", "meaning", "both"):
        raise NotPlain("settings to be read by settings.py")
    return tool_output is True, mode


def log_path(root: str, task: str) -> str:
    return os.path.join(root, "sessions", f"{task}.jsonl")


def grouped(root: str, state: dict, found: list[tuple], wanted: set[str]) -> list[dict]:
    """search.group's turns, as plain data: task by task, turn by turn, best first."""
    by_task: dict[str, dict[int, list[tuple]]] = {}
    for hit in found:
        by_task.setdefault(hit[1], {}).setdefault(hit[3] or -hit[2], []).append(hit)
    turns = []
    for task, turned in by_task.items():
        seen, heads = state["tasks"][task], None
        with open(log_path(root, task), "rb") as handle:
            for turn, members in turned.items():
                members.sort(key=lambda hit: hit[2])
                events = [event(handle, hit, wanted, state["tool_output"]) for hit in members]
                best = max(hit[0] for hit in members)
                if turn <= 0:
                    seq = members[0][2]
                    turns.append(_turn(task, seen, (seq, seq, events[0]["at"], "", ""), best,
                                       f"event seq {seq}, outside any turn", events))  # fmt: skip
                    continue
                if heads is None:
                    heads = finished_heads(handle, log_path(root, task))
                card = heads.get(turn) or turn_head(handle, members[0][6], turn)
                first, last, at, asked, outcome, ms = card
                asked = redact(asked)
                line = head(first, last, outcome, ms, asked)
                turns.append(_turn(task, seen, (first, last, at, asked), best, line, events))
    return turns


def _turn(task: str, seen: dict, card: tuple, score: float, line: str, events: list) -> dict:
    first, last, at, asked = card[:4]
    return {"task": task, "title": seen["title"], "project": seen["project"],
            "first_seq": first, "last_seq": last, "head": line, "asked": asked,
            "score": score, "at": at, "events": events, "summary": "", "found_by": ""}  # fmt: skip


def event(handle, hit: tuple, wanted: set[str], tool_output: bool) -> dict:
    """search.event_hit of a hit, as plain data."""
    handle.seek(hit[4])
    line = handle.readline()
    if not line.endswith(b"\n"):
        raise NotPlain("a torn line")
    kind, record = decoded_record(line[:-1])
    if record["seq"] != hit[2]:
        raise NotPlain("the log moved under the index: found by seq in full")
    found = text_of(kind, record, tool_output)[: matching.SCAN]
    return {"seq": hit[2], "kind": kind if kind is not None else str(record.get("kind", "")),
            "at": record.get("at", "") if kind is not None else str(record.get("at", "")),
            "heading": redact(hit[5]), "lines": matching.snippet(found, wanted)}  # fmt: skip


def text_of(kind: str | None, record: dict, tool_output: bool) -> str:
    """documents.text_of(record, tool_output, clean=False) of a decoded line."""
    get = record.get
    if kind == "message":
        parts = [get("command", ""), get("text", "")]
        for item in get("attachments", ()):
            parts += [item["name"], item.get("text", "")]
    elif kind == "reply":
        parts = [get("text", "")]
        for call in get("calls", ()):
            parts += [call["tool"], *matching.strings(call_input(call.get("input")))]
    elif kind == "result":
        parts = [get("output", "")] if tool_output else []
    elif kind == "plan":
        parts = [item["text"] for item in get("items", ())]
    elif kind == "context.compact":
        parts = [get("note", "")]
    elif kind == "error":
        parts = [get("text", "")]
    elif kind == "approval.ask":
        parts = [get("tool", ""), *matching.strings(call_input(get("input")))]
    elif kind == "bookmark":
        parts = [get("note", "")] if get("starred", True) else []
    elif kind == "memory.summary":
        parts = [get("text", "")]
    elif kind is None:
        parts = matching.strings({k: v for k, v in record.items() if k not in ("kind", "at")})
    else:
        return ""
    return matching.capped(parts)


def call_input(value) -> dict:
    """cards.call_input: a call's input as a dict (a JSON string decoded, as msgspec does)."""
    if isinstance(value, str):
        try:
            value = plain(value)
        except ValueError:
            return {"input": value}
    return value if isinstance(value, dict) else {}


def finished_heads(handle, log: str) -> dict[int, list]:
    """heads.finished_card's heads of a log's finished turns by first seq, from its `.heads`
    (its lines applied as heads.py applies the .mem's frames, checked against the log the
    same way); none when it is missing, large or no longer the log's."""
    try:
        with open(log[: -len(".jsonl")] + ".heads", "rb") as file:
            data = file.read(HEADS + 1)
    except FileNotFoundError:
        return {}
    if len(data) > HEADS or not data.startswith(frames.HEADS_MAGIC):
        return {}  # large, or of another format: from the lines
    cards: list = []
    end, start, crc, count = 0, -1, 0, 0
    for line in data[len(frames.HEADS_MAGIC) :].splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # being written
        base, number, line_end, line_start, line_crc, heads = plain(line)
        if frames.counts(base, end, count):
            cards = list(heads) if base == -1 else cards + heads
            end, start, crc, count = line_end, line_start, line_crc, number + 1
    if not cards or not frames.holds(handle, start, end, crc):
        return {}
    return {card[0]: card for card in cards}


_PREFIX = b'{"kind":"'  # how the log's writer (msgspec, tag first) begins every line


def turn_head(handle, offset: int, first_seq: int) -> tuple:
    """heads.turn_card's head of the turn whose first line is at `offset`: (first seq, last
    seq, time, prompt, outcome, duration). A line of a kind that cannot end the turn is read
    whole only if it is the turn's last; the others are read as heads.py reads them."""
    handle.seek(offset)
    kind, first = decoded_record(handle.readline().rstrip(b"\n"))
    if kind != "message" or first.get("agent") is not None or first["seq"] != first_seq:
        raise NotPlain("the log moved under the index")
    at = first.get("at", "")
    asked = first.get("text", "") or first.get("command", "")
    seq, worked, status, ms, outcome = first_seq, at, "", None, None
    pending = work = None  # the last lines not yet read: any, and the agent's own (WORK)
    closed, says = False, []  # says: lines that may be what the agent last said (_said)
    for line in iter(handle.readline, b""):
        if not line.endswith(b"\n"):
            break  # a writer at work: readers skip a torn last line
        if not line.strip():
            continue
        end = line.find(b'"', len(_PREFIX)) if line.startswith(_PREFIX) else -1
        named = line[len(_PREFIX) : end].decode() if end > 0 else ""
        if named in _NOT_CLOSING:
            pending, work = line, line if named in WORK and not status else work
            closed = closed or named == "session.close"
            says += [line] if named in _SAYS else []
            continue
        kind, record = decoded_record(line[:-1])
        says += [line] if kind in _SAYS else []
        if kind is None:  # of no known kind, or not fitting its kind: not one that ends it
            record = _brief(line)
            kind = record["kind"]
        elif (kind == "message" and record.get("agent") is None) or kind == "session.resume":
            outcome = "unfinished" if kind == "message" else "interrupted"
            break
        if kind in WORK and not status:
            worked, work = record.get("at", "") or worked, None
        if kind == "turn.end":
            status, ms = record.get("status", "completed"), record.get("duration_ms")
        seq, pending = record["seq"], None
    if pending is not None:
        seq = _brief(pending)["seq"]
    if work is not None:
        worked = _brief(work).get("at", "") or worked
    said, live = "", None
    if outcome is None and not status and (closed or not is_live(worked)):
        if _native(handle):
            raise NotPlain("nodwyn's own task: open until closed, as the fold reads its start")
        said, live = _said(says), False
    last_seq, outcome, ms = ending(at, seq, worked, status, ms, outcome, said, live)
    return first_seq, last_seq, at, asked, outcome, ms


_NOT_CLOSING = frozenset(RECORDS) - CLOSING
_SAYS = frozenset(("reply", "result", "approval.ask"))


def _said(says: list[bytes]) -> str:
    """What the main agent last said in a turn, as fold.Turn.said: "answer" (a reply with text
    and no calls), "work" (any other reply, result or ask), "" (none); read from the end."""
    for line in reversed(says):
        kind, record = decoded_record(line[:-1])
        if kind is None or record.get("agent") is not None:
            continue
        answered = kind == "reply" and record.get("text", "").strip() and not record.get("calls")
        return "answer" if answered else "work"
    return ""


def _native(handle) -> bool:
    """Whether the log is nodwyn's own task (or starts otherwise than the fold expects)."""
    handle.seek(0)
    kind, start = decoded_record(handle.readline().rstrip(b"\n"))
    return kind != "session.start" or start.get("origin", {}).get("tool") == "nodwyn"


def _brief(line: bytes) -> dict:
    """A line's kind, seq and time as heads.Brief reads them (NotPlain where it would not)."""
    record = plain(line)
    if not isinstance(record, dict):
        raise NotPlain("not a record")
    seq, at, kind = record.get("seq"), record.get("at", ""), record.get("kind", "")
    if type(seq) is not int or seq < 1 or type(at) is not str or type(kind) is not str:
        raise NotPlain("a line heads.py reads otherwise")
    return record
