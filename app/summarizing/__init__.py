"""Summaries and digests (ADR 0033): recorded by the task's own agent over MCP (recording.py),
or for past tasks, only when the person asks and after an estimate, by a provider the person
chose (providers.py speaks to it, estimate.py says what would be sent and what it would cost,
job.py sends it with progress, cancellable and resumable).

May import: the top modules, log/, tasks/, memory/ and importers/ (prices); floor 4 of
docs/ARCHITECTURE.md.
"""
