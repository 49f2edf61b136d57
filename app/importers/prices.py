"""The cost of one reply: from genai-prices (a dated price library, its data shipped in its
wheel), and from prices.json for what it lacks, each row there with its source.

Invariants: a model neither knows has no cost (None), never a cost of zero, so a sum over a
task can say which model has no price instead of under-reporting; a model run on the person's
own machine, or offered free, costs 0 (prices.json's `free`). Nothing is fetched: genai-prices
reads its bundled snapshot unless its `UpdatePrices` is started, and nothing here starts it
(tests/test_prices.py runs a price with sockets refused). Prices are per request, so a request
whose prompt is over a model's long-context threshold is billed at the long-context rates.
The library is imported at the first price asked (it takes about a second), not at start.
"""

import datetime as dt
import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources

from ..log.records import Usage

_TAIL = re.compile(r"-\d|\[")
FIELDS = ("input", "output", "cache_read", "cache_write")


@cache
def _own() -> dict:
    text = resources.files(__package__).joinpath("prices.json").read_text(encoding="utf-8")
    return json.loads(text)


def table() -> dict[str, dict]:
    """Our own rows (what the library lacks), by model name."""
    return _own()["models"]


@cache
def free(model: str) -> bool:
    """Whether a model, or its name after a provider's prefix, is one of prices.json's free."""
    parts = model.lower().split("/")
    tails = ["/".join(parts[n:]) for n in range(len(parts))]
    return any(tail.startswith(prefix) for tail in tails for prefix in _own()["free"])


@cache
def _row(model: str) -> dict | None:
    """Our row of a model: the longest key it equals or continues with '-<digit>' or '['."""
    best = None
    for key, prices in table().items():
        fits = model == key or (model.startswith(key) and _TAIL.match(model, len(key)))
        if fits and (best is None or len(key) > len(best[0])):
            best = (key, prices)
    return best[1] if best else None


@cache
def _library_model(model: str):
    """genai-prices' (provider, model) for a name, a provider's prefix ("monkeycode/x") taken
    off where the whole name is unknown; None when it knows none of them."""
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    name = model
    while True:
        try:
            return snapshot.find_provider_model(name, None, None, None)
        except LookupError:
            if "/" not in name:
                return None
            name = name.split("/", 1)[1]


def known(model: str) -> bool:
    """Whether a model has a price (free ones have: 0)."""
    return bool(model) and (
        free(model) or _row(model) is not None or _library_model(model) is not None
    )


def cost(model: str, usage: Usage | None, at: str = "") -> float | None:
    """US dollars for one request's tokens, at the prices in force at `at` (the request's own
    time, RFC 3339; now when it has none: a price changes on a date, and some at hours of the
    day, such as DeepSeek's); None when the model or the usage is unknown."""
    if usage is None or not model:
        return None
    if free(model):
        return 0.0
    row = _row(model)
    if row is not None:
        return _own_cost(row, usage)
    found = _library_model(model)
    if found is None:
        return None
    price = found[1].get_prices(_moment(at))
    prompt = usage.input + usage.cache_read + usage.cache_write
    tiers, rates_at = _priced(price)
    tier = max((start for start in tiers if prompt > start), default=0)
    rates = rates_at(tier)
    return round(
        sum(getattr(usage, field) * rate for field, rate in zip(FIELDS, rates, strict=True)), 8
    )


def _moment(at: str) -> dt.datetime:
    """A record's time as the library asks it; now where it has none or cannot be read."""
    try:
        moment = dt.datetime.fromisoformat(at.replace("Z", "+00:00")) if at else None
    except ValueError:
        moment = None
    if moment is None:
        return dt.datetime.now(dt.UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


# a price of the library's (the object its snapshot holds) -> (its tiers, its rates by tier)
_PRICED: dict[int, tuple] = {}


def _priced(price) -> tuple[tuple[int, ...], Callable[[int], tuple[float, ...]]]:
    """The prompt sizes where `price`'s rates change (genai-prices' tiers: over one, every
    token of the request is billed at its rates), and its rates at a tier, each asked of the
    library once (its own reckoning costs about a millisecond a reply, too slow for an import
    of thousands: rates are linear within a tier)."""
    kept = _PRICED.get(id(price))
    if kept is None or kept[0] is not price:
        from genai_prices import types

        tiered = [v for v in vars(price).values() if isinstance(v, types.TieredPrices)]
        tiers = tuple(sorted({tier.start for value in tiered for tier in value.tiers}))
        kept = _PRICED[id(price)] = (price, tiers, cache(lambda tier: _rates(price, tier)))
    return kept[1], kept[2]


def _rates(price, tier: int) -> tuple[float, ...]:
    """Dollars per token of each field (FIELDS' order) for a prompt just over `tier` tokens."""
    from genai_prices import types

    size = tier + 1 if tier else 1_000

    def total(**tokens) -> float:
        return float(price.calc_price(types.Usage(input_tokens=size, **tokens))["total_price"])

    alone = total()
    return (
        alone / size,
        (total(output_tokens=size) - alone) / size,
        total(cache_read_tokens=size) / size,
        total(cache_write_tokens=size) / size,
    )


def _own_cost(row: dict, usage: Usage) -> float:
    prompt = usage.input + usage.cache_read + usage.cache_write
    long = row.get("long_context")
    rates = long if long and prompt > long["above"] else row
    total = sum(getattr(usage, field) * rates[field] for field in FIELDS)
    return round(total / 1_000_000, 8)


@cache
def price_of(model: str) -> dict[str, float] | None:
    """A model's base rates in dollars per million tokens (a prompt under any long-context
    threshold), or None when it has none."""
    if not known(model):
        return None
    unit = 1_000  # a thousand tokens of each kind, below every threshold
    return {
        field: round((cost(model, Usage(**{field: unit})) or 0.0) * 1_000_000 / unit, 6)
        for field in FIELDS
    }
