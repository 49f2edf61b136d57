"""`nodwyn status`: what the running app, `nodwyn serve` or the search service is doing
(its progress, /api/status), or, when none runs, how far the vectors of the tasks are (each
task's .vec looked at: fresh for the model the settings choose, or not)."""

from ..memory.meaning import encoder, vectors


def of(store, progress: dict | None) -> dict:
    """{"serving": whether a process serves the data directory, "phase", "done", "total",
    "left" (seconds, -1 unknown); with none serving, "encoded" of "tasks"}."""
    if progress is not None:
        return {
            "serving": True,
            **{key: progress.get(key) for key in ("phase", "done", "total", "left")},
        }
    logs = list(store.sessions.glob("*.jsonl"))
    model = encoder.expected_id(store.root)
    done = sum(1 for log in logs if model and vectors.fresh(log, vectors.load(log), model))
    return {"serving": False, "phase": "", "done": done, "total": len(logs), "left": -1.0}


def said(found: dict) -> str:
    """The status as one line."""
    done, total, left = found["done"], found["total"], found["left"]
    if found["phase"] == "encoding":
        about = f", about {duration(left)} left" if left is not None and left >= 0 else ""
        return f"encoding {done:,} of {total:,} tasks{about}"
    if found["phase"]:
        return f"{found['phase']} {done:,} of {total:,}"
    if found["serving"]:
        return "idle: nothing under way (the vectors are up to date)"
    return (
        f"no app or search service is running; meaning covers {done:,} of {total:,} tasks "
        "(the next search by meaning starts the service, which encodes the rest)"
    )


def duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
