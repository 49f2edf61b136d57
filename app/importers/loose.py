"""Agents' JSON objects read loosely: a field of the wrong type is taken as absent.

OpenCode's and Cursor's mappings read documents and rows as plain data (their shapes change
between versions and only some fields matter). A field of another type than expected (a list
where an object was, a string for a time) must not stop the import of a session, so each
object is first given the shape the mapping reads: every field named in the shape has that
type, or the empty value of it (0, "", {}, []); fields not named are kept as they are.
"""

EMPTY = {int: 0, float: 0.0, str: "", list: [], bool: False}


def shaped(value, shape: dict) -> dict:
    """`value` as an object whose fields named in `shape` have the types it says (a nested
    dict is the shape of a nested object)."""
    out = dict(value) if isinstance(value, dict) else {}
    for name, kind in shape.items():
        field = out.get(name)
        if isinstance(kind, dict):
            out[name] = shaped(field, kind)
        elif kind is float:
            good = isinstance(field, int | float) and not isinstance(field, bool)
            out[name] = field if good and field == field else 0.0  # NaN is no number
        elif kind is int:
            out[name] = field if isinstance(field, int) and not isinstance(field, bool) else 0
        elif not isinstance(field, kind):
            out[name] = EMPTY[kind]
    return out


def objects(value) -> list[dict]:
    """The objects of a list (anything else in it, or a value that is no list: none)."""
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []
