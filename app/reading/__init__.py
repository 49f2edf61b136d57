"""Reading a task as people read it: Markdown as element trees, edits as diffs, tool output's
colours, exports, the agent's resume command. Everything here reads records and returns plain
data; the page and the exports build from the same trees, so they render alike.

May import: the top modules, log/, memory/, importers/ (the resume command's agent) and
machines/ (the SSH machine a task is resumed on);
floor 4 of docs/ARCHITECTURE.md.
"""
