"""The names people read for machines: one line, printable, short."""

NAME_MAX = 64


def clean_name(name: str) -> str:
    """A name on one line, without control characters, at most NAME_MAX characters."""
    text = " ".join("".join(c if c.isprintable() else " " for c in name).split())
    return text[:NAME_MAX]
