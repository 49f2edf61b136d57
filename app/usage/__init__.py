"""Usage: what the agents' turns cost and used, and how near each agent is to its rate limits.

Holds figures.py (`report`: cost and tokens by day, week, month, project, model or agent, for
the overview and `nodwyn usage`), limits.py (rate-limit readings from a log's records, folded
by the catalogue) and quota.py (`meter`: each agent's windows against now). Prices stay with
the importers (importers/prices.py, prices.json), which price each turn as they map it.

May import: the top modules, log/, memory/ (the turn cards), tasks/ (the store) and importers/.
Empty on purpose: the catalogue imports limits.py, which needs nothing but log records.
"""
