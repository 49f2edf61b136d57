"""The price table (prices.json, shipped as package data) and the cost of one reply.

Invariant: a model the table does not know has no cost (None), never a cost of zero, so a
sum over a task can say "unknown" instead of under-reporting.
"""

import json
import re
from functools import cache
from importlib import resources

from ..log.records import Usage

_TAIL = re.compile(r"-\d|\[")


@cache
def table() -> dict[str, dict[str, float]]:
    text = resources.files(__package__).joinpath("prices.json").read_text(encoding="utf-8")
    return json.loads(text)["models"]


@cache
def price_of(model: str) -> dict[str, float] | None:
    """The prices of a model, by the longest key it equals or continues with '-<digit>' or '['."""
    best = None
    for key, prices in table().items():
        fits = model == key or (model.startswith(key) and _TAIL.match(model, len(key)))
        if fits and (best is None or len(key) > len(best[0])):
            best = (key, prices)
    return best[1] if best else None


def cost(model: str, usage: Usage | None) -> float | None:
    """US dollars for one reply's tokens; None when the model or the usage is unknown."""
    if usage is None or not model:
        return None
    prices = price_of(model)
    if prices is None:
        return None
    total = (
        usage.input * prices["input"]
        + usage.output * prices["output"]
        + usage.cache_read * prices["cache_read"]
        + usage.cache_write * prices["cache_write"]
    )
    return round(total / 1_000_000, 8)
