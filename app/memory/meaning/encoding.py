"""The background's encoding pass: every task's vectors (vectors.py) brought up to date, the
logs changed last first, by the encoder the settings choose (encoder.py), as the app, `nodwyn
serve` and the search service run it after their imports. Rows come as bytes from the model's
process where it runs in one, so this pass imports no numpy there."""

from ... import settings as settingsmod
from ...errors import NodwynError, TaskNotFound
from . import encoder as encodermod
from . import vectors


def refresh(store, progress=None, lock=None) -> None:
    """Bring every task's .vec up to date, the most recently changed logs first (what a
    person searches for first); nothing while search_mode is "words" (so nothing is sent to a
    provider then), or when no encoder can be had or it fails. A saved stack holding a
    deleted task's vectors is removed whatever the mode. `lock`, if given, is held only while
    a task's cards are read (update). `progress(done, total)` is called before each task (it
    may raise to stop the work)."""
    vectors.drop_stale_stack(store.root, {log.stem for log in store.sessions.glob("*.jsonl")})
    if settingsmod.load(store.root).search_mode == "words":
        return
    expected, encoder = encodermod.expected_id(store.root), None
    logs = vectors.newest_first(store.sessions.glob("*.jsonl"))
    for done, log in enumerate(logs):
        if progress is not None:
            progress(done, len(logs))
        vec = vectors.load(log)
        if expected is not None and vectors.fresh(log, vec, expected):
            continue  # the model is loaded only for a task that needs it
        try:
            encoder = encoder or encodermod.current(store.root)
        except encodermod.Unavailable:
            return
        try:
            vectors.update(log, encoder, vec, lock=lock)
        except (TaskNotFound, encodermod.Unavailable):
            continue  # deleted meanwhile
        except NodwynError:
            return  # a provider failing: search falls back to words until it answers
    if progress is not None and logs:
        progress(len(logs), len(logs))
