"""What each agent's live session is doing now: needs your answer, running, your turn.

Fed by the agents' own hooks (`hook.py`: the command an agent runs, handing its event to the
running app or to a spool in the data directory) and by what the logs say without hooks
(`logs.py`); held by the app in a `board.Board`, which the task list, the tray and
`nodwyn sessions --live` read. `install.py` puts the hooks into each agent's user settings and
takes them out again. It may import the floors below it (importers, tasks, log), never the
api, cli or desktop above (ADR 0046).
"""
