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


def cost(model: str, usage: Usage | None) -> float | None:
    """US dollars for one request's tokens; None when the model or the usage is unknown."""
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
    prompt = usage.input + usage.cache_read + usage.cache_write
    tier = max((start for start in _tiers(model) if prompt > start), default=0)
    rates = _rates(model, tier)
    return round(
        sum(getattr(usage, field) * rate for field, rate in zip(FIELDS, rates, strict=True)), 8
    )


@cache
def _tiers(model: str) -> tuple[int, ...]:
    """Where the model's prices change with the prompt's size (genai-prices' tiers: over one,
    every token of the request is billed at its rates)."""
    from genai_prices import types

    price = _library_model(model)[1].get_prices(dt.datetime.now(dt.UTC))
    tiered = [value for value in vars(price).values() if isinstance(value, types.TieredPrices)]
    return tuple(sorted({tier.start for value in tiered for tier in value.tiers}))


@cache
def _rates(model: str, tier: int) -> tuple[float, ...]:
    """Dollars per token of each field (FIELDS' order) for a prompt just over `tier` tokens,
    asked of the library once (its own reckoning costs about a millisecond a reply, too slow
    for an import of thousands: rates are linear within a tier)."""
    from genai_prices import types

    provider, info = _library_model(model)
    size = tier + 1 if tier else 1_000

    def price(**tokens) -> float:
        asked = types.Usage(input_tokens=size, **tokens)
        return float(info.calc_price(asked, provider).total_price)

    alone = price()
    return (
        alone / size,
        (price(output_tokens=size) - alone) / size,
        price(cache_read_tokens=size) / size,
        price(cache_write_tokens=size) / size,
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
