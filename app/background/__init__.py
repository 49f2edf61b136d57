"""What runs beside the page and the commands: the worker that imports and indexes, the search
service, the running app's address, one app per data directory, the change feed, the folders
watched, and the scrub of old logs.

Holds worker.py (the background import and index loop), service.py (the search service a
search starts), running.py (api.json: the running app, asked to search), instance.py (one app a
data directory), feed.py (progress and the change feed the page waits on), watch.py (watchdog's
notifications), status.py (`nodwyn status`) and scrub.py (logs redacted again under new rules).

May import: the top modules, log/, tasks/, memory/, importers/ and usage/. Never api/, cli/ or
desktop/ (they start these).
"""
