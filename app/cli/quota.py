"""`nodwyn quota`: how much of each agent's rate limits its logs last said was used,
and when each window starts over; `--json` gives the meter as the API does."""

from datetime import UTC, datetime

from .console import print_json, store


def add_quota(sub) -> None:
    cmd = sub.add_parser("quota", help="each agent's rate limits as its logs last said them")
    cmd.add_argument("--json", action="store_true", help="the meter as JSON (as GET /api/quota)")
    cmd.set_defaults(run=cmd_quota)


def cmd_quota(args) -> int:
    import msgspec

    from ..usage.quota import clock, meter

    found = meter(store(args))
    if args.json:
        print_json(msgspec.to_builtins(found))
        return 0
    if not found.agents:
        print("no agent's logs hold rate limits yet (Codex writes them; import its sessions)")
        return 0
    now = datetime.now(UTC)
    for agent in found.agents:
        print(agent.line)
        for w in agent.windows:
            if not w.share:  # a limit message: its text says when it was hit and resets
                print(f"  {w.text}" if w.label == "limit" else f"  {w.label:<6} {w.text}")
                continue
            print(f"  {w.label:<6} {w.text}{_more(w, now)} (as of {clock(w.as_of, now)})")
    return 0


def _more(w, now: datetime) -> str:
    """A current window's reset, its burn rate lately and where that leads."""
    from ..usage.quota import clock

    if w.state != "current":
        return ""
    parts = [f"resets {clock(w.resets_at, now)}"] if w.resets_at else []
    if w.burn_per_hour:
        parts.append(f"{w.burn_per_hour:g} points an hour lately")
        runs_out = f"used up at {clock(w.runs_out_at, now)}" if w.runs_out_at else ""
        parts.append(f"{runs_out or 'lasts to the reset'} at that rate")
    return "".join(f", {part}" for part in parts)
