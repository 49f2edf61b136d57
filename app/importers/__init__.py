"""Importing the agents' own sessions as nodwyn tasks (STYLE 15: one room per agent).

A small shared core: agent.py (the one interface every agent meets, and its types),
registry.py (the table of agents, chosen by name),
sources.py and formats.py (finding an agent's files and telling whose they are), sync.py (the
import and follow loop, with its `.imp` state), problems.py (lines that could not be read),
prices.py, times.py, loose.py, readonly.py and whole.py (what several formats need). Each agent
is a sub-package (claude/, codex/, gemini/...) that only turns its format into nodwyn's
records.

May import: the top modules, log/, tasks/ and memory/ (floor 3 of docs/ARCHITECTURE.md);
never api/, cli/, desktop/, mcp/ or background/.
"""
