"""Log lines and answers read and written as msgspec does, by json's C modules (`_json`), for
a process that must start fast without msgspec (memory/words/quick.py, issue 16).

`decoded_record` takes a line as records.decode takes it: a record of a known kind whose
fields all have the types records.py gives them (RECORDS, which tests/test_quick_search.py
derives from records.py's Structs and compares), else the line's raw object (records.Opaque);
NotPlain for a line records.decode refuses, and for the rare JSON that json and msgspec read
apart (a lone surrogate escape, NaN, a number out of a float's range). `encoded` writes an
answer's bytes as msgspec.json.encode does.
"""


class NotPlain(Exception):
    """Something this module cannot read or write exactly as msgspec does: the caller goes
    the full way, with msgspec."""


# Each kind's fields and their types as records.py declares them: a type name, ("?", t) for
# t or null, ("list", t), or a struct: (its fields, its required fields).
_SRC = ({"line": ("?", "int"), "id": ("?", "str"), "file": ("?", "str")}, ())
_BASE = {"seq": "int", "at": "str", "agent": ("?", "str"), "src": ("?", _SRC)}
_CALL = ({"id": "str", "tool": "str", "input": "any"}, ("id", "tool"))
_USAGE = ({"input": "int", "output": "int", "cache_read": "int", "cache_write": "int"}, ())
_ORIGIN = (
    {"tool": "str", "path": "str", "id": "str", "version": "str", "machine": "str"},
    ("tool",),
)
RECORDS = {
    "session.start": ({"project": "str", "origin": _ORIGIN, "model": "str", "branch": "str",
                       "machine": "bool"}, ("project", "origin")),
    "session.title": ({"title": "str", "actor": "str"}, ()),
    "session.archive": ({"archived": "bool"}, ()),
    "session.close": ({}, ()),
    "session.resume": ({}, ()),
    "message": ({"text": "str", "command": "str", "attachments": (
        "list", ({"name": "str", "text": "str"}, ("name",)))}, ()),
    "reply": ({"text": "str", "thinking": "str", "calls": ("list", _CALL), "model": "str",
               "usage": ("?", _USAGE), "cost_usd": ("?", "float")}, ()),
    "result": ({"call": "str", "tool": "str", "output": "str", "error": "bool",
                "exit": ("?", "int"), "files": ("list", "str")}, ()),
    "plan": ({"items": ("list", ({"text": "str", "status": "str"}, ("text",)))}, ()),
    "approval.ask": ({"call": "str", "tool": "str", "input": "any"}, ()),
    "approval.answer": ({"call": "str", "allowed": "bool"}, ()),
    "turn.end": ({"status": "str", "duration_ms": ("?", "int"), "cost_usd": ("?", "float")}, ()),
    "context.compact": ({"note": "str", "first_seq": "int", "last_seq": "int"}, ()),
    "error": ({"text": "str"}, ()),
    "bookmark": ({"turn": "int", "note": "str", "starred": "bool"}, ()),
    "memory.summary": ({"text": "str", "level": "str", "first_seq": "int", "last_seq": "int",
                        "turns": "int", "by": "str", "provider": "str", "model": "str"}, ()),
    "limit": ({"name": "str", "window_minutes": "int", "used_percent": "float",
               "resets_at": "str", "plan": "str", "reached": "bool"}, ()),
}  # fmt: skip


def decoded_record(line: bytes) -> tuple[str | None, dict]:
    """(kind, fields) of a log line as records.decode reads it: kind None for a line that
    it keeps as Opaque (of no known kind, or with a field that does not fit); NotPlain for
    a line it refuses (records.Damaged)."""
    record = plain(line)
    if not isinstance(record, dict):
        raise NotPlain("not a record")
    seq = record.get("seq")
    if type(seq) is not int or seq < 1:
        raise NotPlain("no seq")
    kind = record.get("kind")
    fields = RECORDS.get(kind) if type(kind) is str else None
    if fields is None or not fits(record, ({**_BASE, **fields[0]}, fields[1])):
        return None, record
    return kind, record


def fits(value, kind) -> bool:
    """Whether a decoded JSON value is of a type in RECORDS' notation, as msgspec checks it."""
    if kind == "str":
        return type(value) is str
    if kind == "int":
        return type(value) is int
    if kind == "bool":
        return type(value) is bool
    if kind == "float":
        return type(value) in (int, float)
    if kind == "any":
        return True
    if kind[0] == "?":
        return value is None or fits(value, kind[1])
    if kind[0] == "list":
        return type(value) is list and all(fits(item, kind[1]) for item in value)
    names, required = kind
    if type(value) is not dict or any(name not in value for name in required):
        return False
    return all(fits(value[name], of) for name, of in names.items() if name in value)


class _Strict:
    """What json's C scanner reads of a decoder: json.loads' defaults, but refusing what
    msgspec refuses and json takes (NaN and Infinity, numbers out of a float's range)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_int = int
    memo: dict = {}

    @staticmethod
    def parse_constant(name: str):
        raise ValueError(f"{name} is not JSON")

    @staticmethod
    def parse_float(text: str) -> float:
        value = float(text)
        if value in (float("inf"), float("-inf")):
            raise ValueError("a number out of range")
        return value


_scanner: list = []
_SPACE = " \t\n\r"


def plain(data: bytes | str):
    """One JSON value, as msgspec.json.decode reads it (ValueError for anything else)."""
    if not _scanner:
        import _json

        _scanner.append(_json.make_scanner(_Strict()))
    text = data.decode() if isinstance(data, bytes) else data
    if "\\ud" in text or "\\uD" in text:  # json takes a lone one, msgspec does not
        raise NotPlain("a surrogate escape")
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        value, end = _scanner[0](text, start)
    except (StopIteration, SystemError, RecursionError) as exc:
        raise ValueError("not JSON") from exc
    if text[end:].strip(_SPACE):
        raise ValueError("not one JSON value")
    return value


def encoded(found: dict) -> bytes:
    """The answer as msgspec.json.encode writes FusedResults: compact, UTF-8, the same escapes
    (json's C encoder's), floats as their shortest repr (msgspec's, for the scores a search
    gives, 1e-4 to 1e16: outside it the two write exponents apart, so NotPlain)."""
    import _json

    for turn in found["turns"]:
        if not (turn["score"] == 0.0 or 1e-4 <= abs(turn["score"]) < 1e16):
            raise NotPlain("a score msgspec writes otherwise")
    encoder = _json.make_encoder(None, None, _json.encode_basestring, None, ":", ",",
                                 False, False, False)  # fmt: skip
    return "".join(encoder(found, 0)).encode()
