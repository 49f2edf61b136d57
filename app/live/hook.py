"""The command an agent's hook runs: its event handed to the running app, else to the spool.

`python -m nodwyn.live.hook AGENT [EVENT] [--data-dir DIR] [-- PROGRAM ARGS...]` reads the
agent's payload (JSON on stdin for the agents that send one; Codex's notify gives it as the
last argument, after the person's own program, which is run with it as before), and posts one
line {agent, event, payload, pid, at} to the running app of the data directory (`api.json`:
loopback, with the app's token). With no app there, or one that does not answer at once,
the line is appended to the spool (`<data>/live-spool.jsonl`), which the app reads when it
starts. It exits 0 whatever happens: a hook must never slow or stop its agent.

It starts in tens of milliseconds: nothing is imported beyond os, sys, time, json and the C
module `_socket` (`background.running.post`: one POST of one line needs no HTTP client);
long strings of a payload (a file written whole) are cut.
"""

import os
import sys
import time

SPOOL = "live-spool.jsonl"
STDIN = {"claude", "codex", "gemini", "copilot", "opencode", "cursor"}  # JSON on stdin
LIMIT = 1 << 20  # bytes of stdin read at most
CUT = 400  # characters a string of the payload keeps
SHELLS = {"sh", "bash", "dash", "zsh", "fish", "cmd.exe", "pwsh", "powershell"}
CONNECT, ANSWER = 0.2, 1.0  # seconds: a live app on loopback answers in a few ms


def main(argv: list[str] | None = None) -> int:
    try:  # noqa: SIM105 (contextlib is one import more on a hook's path)
        _run(sys.argv[1:] if argv is None else argv)
    except BaseException:  # noqa: BLE001 (whatever went wrong, the agent goes on)
        pass
    return 0


def _run(argv: list[str]) -> None:
    agent, event, data_dir, chain, payload = parse(argv)
    if chain:
        _chain(chain, payload)  # the person's own notify program, as Codex ran it before
    if agent in STDIN and payload is None:
        payload = _stdin()
    import json

    from .. import paths

    try:
        value = json.loads(payload) if payload else None
    except ValueError:
        value = payload[:CUT] if isinstance(payload, str) else None
    line = {
        "agent": agent,
        "event": event,
        "payload": _slim(value, 0),
        "pid": agent_pid(),
        "at": time.time(),
        "cwd": os.getcwd(),
    }
    body = _dumps(line)
    root = paths.data_root(data_dir)
    if not post(root, body):
        append(root, body)


def parse(argv: list[str]) -> tuple[str, str, str | None, list[str], str | None]:
    """(agent, event, data dir, the chained program, a payload given as an argument)."""
    agent = argv[0] if argv else ""
    rest = list(argv[1:])
    payload = rest.pop() if agent == "codex-notify" and rest else None
    chain: list[str] = []
    if "--" in rest:
        at = rest.index("--")
        rest, chain = rest[:at], rest[at + 1 :]
    data_dir = None
    if "--data-dir" in rest:
        at = rest.index("--data-dir")
        data_dir = rest[at + 1] if at + 1 < len(rest) else None
        del rest[at : at + 2]
    return agent, rest[0] if rest else "", data_dir, chain, payload


def _chain(program: list[str], payload: str | None) -> None:
    import subprocess

    given = [payload] if payload is not None else []
    kept = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:  # noqa: SIM105
        subprocess.Popen([*program, *given], start_new_session=True, **kept)
    except OSError:  # the person's program is gone: ours still runs
        pass


def _stdin() -> str | None:
    """The payload on stdin; None at once when stdin is a terminal or gives nothing soon."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return None
    if os.name != "nt":
        import select

        ready, _, _ = select.select([stream], [], [], 0.5)
        if not ready:
            return None
    return stream.buffer.read(LIMIT).decode("utf-8", "replace")


def _slim(value, depth: int):
    """The payload with long strings cut and deep nesting dropped: what a state needs."""
    if isinstance(value, str):
        return value if len(value) <= CUT else value[: CUT - 1] + "…"
    if depth > 4:
        return None
    if isinstance(value, dict):
        return {str(k): _slim(v, depth + 1) for k, v in list(value.items())[:50]}
    if isinstance(value, list):
        return [_slim(v, depth + 1) for v in value[:20]]
    return value


def agent_pid() -> int:
    """The agent's process: the hook's parent, or its parent's when that is a shell the agent
    started the hook with (read from /proc where there is one)."""
    pid = os.getppid()
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8") as handle:
            name = handle.read().strip()
        if name in SHELLS:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
                pid = int(handle.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return pid


def _dumps(value) -> bytes:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def post(root: str, body: bytes) -> bool:
    """Whether the running app of `root` took the line (`running.post`)."""
    from ..background import running

    return running.post(root, "live/events", body, CONNECT, ANSWER)


def append(root: str, body: bytes) -> None:
    """One line at the spool's end, in one write (O_APPEND: lines of hooks at once never mix)."""
    fd = os.open(os.path.join(root, SPOOL), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, body + b"\n")
    finally:
        os.close(fd)


if __name__ == "__main__":
    sys.exit(main())
