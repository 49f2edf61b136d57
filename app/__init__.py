"""nodwyn: keeps the history of AI coding-agent sessions on this computer and finds it again."""

__version__ = "0.6.3"
