"""The local HTTP API and the page, served by a threaded server on 127.0.0.1.

The only package that imports bottle (STYLE 2). Its modules:
- routes.py: every route in one table; each decodes its input, calls one core function (store
  or memory) and returns a Struct, sent as JSON;
- bodies.py: the Structs the routes take and give; settings_form.py: the settings as the page
  shows and changes them;
- server.py: the WSGI app (the Host and token guard, the one JSON error shape, the size and
  time limits on a body) and the server's thread (ADR 0005).
The page `/` is given only to a request whose `?token=` is the token; it carries the token to
its scripts in a meta tag.

May import: every package but cli/ and desktop/ (floor 5 of docs/ARCHITECTURE.md).
"""

from ..background.feed import Changes, Feed, Progress, Status
from .routes import routes
from .server import BACKLOG, MAX_BODY, READ_TIMEOUT, Server, make_app

__all__ = [
    "BACKLOG",
    "MAX_BODY",
    "READ_TIMEOUT",
    "Changes",
    "Feed",
    "Progress",
    "Server",
    "Status",
    "make_app",
    "routes",
]
