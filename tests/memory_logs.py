"""Hand-written task logs for the memory tests (written through the real Store and Writer)."""

from nodwyn.log import records as r
from nodwyn.tasks.store import Store


def start(project: str = "/work/p") -> r.SessionStart:
    return r.SessionStart(project=project, origin=r.Origin(tool="claude-code"))


def write(store: Store, task: str, items: list, project: str = "/work/p") -> None:
    """Create `task` with a session.start and `items`, or append `items` to it."""
    if store.exists(task):
        with store.writer(task) as writer:
            writer.append(items)
    else:
        with store.create(start(project), task) as writer:
            writer.append(items)


def at(second: int) -> str:
    return f"2026-11-29T10:{second // 60:02d}:{second % 60:02d}.000Z"


def stamp(moment) -> str:
    """A datetime as logs write times (RFC 3339 UTC, milliseconds)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def turn(text: str, *, reply: str = "done", end: str | None = "completed", t0: int = 0) -> list:
    """A small turn: message, reply, and (unless end is None) a turn.end."""
    items = [r.Message(text=text, at=at(t0)), r.Reply(text=reply, at=at(t0 + 1))]
    if end is not None:
        items.append(r.TurnEnd(status=end, duration_ms=2000, at=at(t0 + 2)))
    return items


class Counting:
    """The built-in model, noting each text it is asked to encode."""

    def __init__(self):
        from nodwyn.memory.meaning import encoder

        self.model, self.texts = encoder.builtin(), []
        self.id = self.model.id

    def encode(self, texts):
        self.texts.extend(texts)
        return self.model.encode(texts)


def encoded(store, model) -> None:
    """Every log's vectors made by `model`, as the background makes them (a search makes
    none: it encodes its query alone)."""
    from nodwyn.memory.meaning import vectors

    for log in vectors.newest_first(store.sessions.glob("*.jsonl")):
        vectors.update(log, model)


def without_the_sentence_model(folder, monkeypatch) -> None:
    """The shipped model's folder as it would be without minilm.onnx (the static table only),
    at `folder`, with no model loaded yet."""
    import shutil

    from nodwyn.memory.meaning import encoder

    folder.mkdir()
    for name in ("table.npy", "vocab.txt", "meta.json"):
        shutil.copyfile(encoder.MODEL / name, folder / name)
    monkeypatch.setattr(encoder, "MODEL", folder)
    monkeypatch.setattr(encoder, "_builtin", None)
