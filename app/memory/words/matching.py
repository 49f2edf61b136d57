"""What a word search shows of a match: the snippet lines cut from an event's text (search.py;
terms.py builds the query)."""

from ...log.redact import redact

EVENT_TEXT = 100_000  # characters of one event that the index holds and snippets come from
SNIPPET_LINES = 3
SNIPPET_WIDTH = 240  # characters of a snippet line
AROUND = 50  # characters kept either side of a matched word in a long line
SCAN = 400_000  # characters of an event's text looked at for snippets
MAX_LIMIT = 200  # turns a search gives at most
FIRST_PIECE = 4096  # characters first looked at for a text's first line
LONG_LINE = 2_000  # characters from which a line's redaction is kept for the next hit showing it
KEPT_CHARS = 1_000_000  # characters of long lines kept, at most (each held as read and redacted)


class Redactions:
    """Text as redacted, kept for the process, for text of `shortest` characters or more: the
    same line (a file read, an output repeated) or heading is shown by many hits, and redacting
    a long line costs milliseconds. The rules are the code's, so what is kept stays right; at
    most KEPT_CHARS are held, let go together past that."""

    def __init__(self, shortest: int):
        self.shortest = shortest
        self.kept: dict[str, str] = {}
        self.held = 0

    def __call__(self, text: str) -> str:
        if len(text) < self.shortest:
            return redact(text)
        shown = self.kept.get(text)
        if shown is None:
            shown = redact(text)
            if self.held + len(text) > KEPT_CHARS:
                self.kept, self.held = {}, 0
            self.kept[text] = shown
            self.held += len(text)
        return shown


redacted = Redactions(LONG_LINE)  # snippet lines: only long ones are worth keeping


def strings(value) -> list[str]:
    """The string leaves of a JSON-like value (a call's input, an unknown record)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in strings(item)]
    return []


def capped(parts: list[str]) -> str:
    """An event's parts joined, at most EVENT_TEXT characters: a 50 MB line costs the index
    and its snippets what 100 KB does (the log keeps every byte; the transcript says it cut)."""
    kept, room = [], EVENT_TEXT
    for part in parts:
        if part and room > 0:
            kept.append(part[:room])
            room -= len(kept[-1]) + 1
    return "\n".join(kept)


def ranked(searcher, query, known, tasks: set[str] | None, limit: int) -> list[tuple]:
    """The best `limit` events of a query, best first, as (score, task, seq, turn, offset,
    heading, turn_at): events of tasks not `known` (deleted since the index saw them) or
    outside `tasks` (None: all) left out."""
    result = searcher.search(query, limit + 20, count=False)
    out = []
    for score, address in result.hits:  # best first
        if len(out) >= limit and score < out[-1][0]:
            break  # enough, and none left that ties with the last one kept
        keys = searcher.doc(address).to_dict()
        task = keys["task"][0]
        if task not in known or (tasks is not None and task not in tasks):
            continue  # a task deleted since the index last saw it
        out.append(
            (
                score,
                task,
                keys["seq"][0],
                keys["turn"][0],
                keys["offset"][0],
                keys["heading"][0],
                keys["turn_at"][0],
            )
        )
    # equal scores (the same words in two tasks) in a fixed order, whatever the segments
    out.sort(key=lambda hit: (-hit[0], hit[1], hit[2]))
    return out[:limit]


def snippet(text: str, terms: set[str]) -> list[str]:
    """Up to three lines of `text`, those holding the most distinct query terms, in text order,
    each redacted and then cut around its matched words when it is long. A term is looked for
    as a lower-case substring (that is how a word or identifier part shows in a line)."""
    low = text.lower()
    if len(low) != len(text):  # a character whose lower case is longer: go line by line
        return _snippet_by_line(text, terms)
    found: dict[int, tuple[int, set[str]]] = {}  # line start -> (line end, terms in it)
    for term in terms:
        at, seen = low.find(term), 0
        while at >= 0 and seen < 200:
            start = low.rfind("\n", 0, at) + 1
            end = low.find("\n", at)
            end = len(low) if end < 0 else end
            found.setdefault(start, (end, set()))[1].add(term)
            at, seen = low.find(term, end + 1), seen + 1
    if not found:
        return _first_line(text)
    best = sorted(found.items(), key=lambda item: (-len(item[1][1]), item[0]))[:SNIPPET_LINES]
    return [cut(redacted(text[start:end]), matched) for start, (end, matched) in sorted(best)]


def _snippet_by_line(text: str, terms: set[str]) -> list[str]:
    chosen = []
    for number, line in enumerate(text.splitlines()):
        matched = {term for term in terms if term in line.lower()}
        if matched:
            chosen.append((-len(matched), number, line, matched))
    if not chosen:
        return _first_line(text)
    best = sorted(sorted(chosen)[:SNIPPET_LINES], key=lambda item: item[1])
    return [cut(redacted(line), matched) for _, _, line, matched in best]


def _first_line(text: str) -> list[str]:
    """The first line that is not blank, as splitlines() cuts lines, looked for in a piece of
    the text four times longer each time (a prompt may hold a long paste, whose lines are not
    all needed)."""
    size = FIRST_PIECE
    while True:
        lines = text[:size].splitlines()
        first = next((at for at, line in enumerate(lines) if line.strip()), None)
        if first is not None and (size >= len(text) or first < len(lines) - 1):
            return [cut(redacted(lines[first]), set())]  # a line after it: it is whole
        if size >= len(text):
            return []
        size *= 4


def cut(line: str, matched: set[str]) -> str:
    """A line at most about SNIPPET_WIDTH characters long that still shows every matched word."""
    line = line.strip()
    if len(line) <= SNIPPET_WIDTH:
        return line
    low = line.lower()
    spans = []
    for term in sorted(matched, key=lambda term: low.find(term)):
        at = low.find(term)
        if at >= 0:
            spans.append([max(0, at - AROUND), min(len(line), at + len(term) + AROUND)])
    if not spans:
        return line[: SNIPPET_WIDTH - 1] + "…"
    merged = [spans[0]]
    for start, end in spans[1:]:
        if start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces = [line[start:end].strip() for start, end in merged]
    text = " … ".join(pieces)
    if merged[0][0] > 0:
        text = "…" + text
    if merged[-1][1] < len(line):
        text += "…"
    return text
