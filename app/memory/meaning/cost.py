"""What a provider for search by meaning would be sent, and would cost, before it is chosen.

Choosing a provider sends every card and note of every task once (then the new ones as they
come, and each search's words), so the page and `nodwyn settings embeddings` say how much that
is before the person presses "Use this provider". Tokens are estimated as characters / 4,
rounded up, per text (the rule the summaries' estimate uses, ADR 0033). The price is the
model's list price per million input tokens in prices.json beside this file; a server on this
computer (Ollama on 127.0.0.1, a local OpenAI-format server) costs the person nothing; a model
not in the table says "price unknown" rather than a guess. Nothing here opens a socket.
"""

import json
import math
from functools import cache
from pathlib import Path
from urllib.parse import urlparse

from msgspec import Struct

from ...errors import BadInput, TaskNotFound
from ..cards import mem as memfile
from . import vectors
from .providers import KINDS

PRICES = Path(__file__).with_name("prices.json")
CHARS_PER_TOKEN = 4


class Cost(Struct, frozen=True, kw_only=True):
    texts: int  # cards, notes and summaries that would be sent once
    tokens: int  # about
    cost_usd: float | None  # None: free or unknown (`price` says which)
    price: str  # in words: "about $0.0123 at $0.06 a million tokens", "free: ...", "price unknown"


@cache
def table() -> dict[str, float]:
    return json.loads(PRICES.read_text(encoding="utf-8"))["models"]


def on_this_computer(url: str) -> bool:
    host = urlparse(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def estimate(store, kind: str, model: str, url: str = "") -> Cost:
    """The texts and tokens every task would send to the provider, and their price."""
    if kind not in ("builtin", *KINDS):
        raise BadInput(f"embeddings are builtin, {', '.join(KINDS)}; not {kind!r}")
    texts = tokens = 0
    for log in store.sessions.glob("*.jsonl"):
        try:
            cards, episodes = memfile.cards_of(log)
        except TaskNotFound:  # deleted meanwhile
            continue
        found = vectors.texts_of(cards, episodes, vectors.project_of(log))
        for _, _, _, text in found + vectors.summary_texts(log, cards):
            texts += 1
            tokens += math.ceil(len(text) / CHARS_PER_TOKEN)
    if kind == "builtin" or (kind != "voyage" and on_this_computer(url)):
        return Cost(
            texts=texts, tokens=tokens, cost_usd=None, price="free: the model runs on this computer"
        )
    per_million = table().get(model)
    if per_million is None:
        why = f"price unknown (nodwyn has no price for {model or 'that model'})"
        return Cost(texts=texts, tokens=tokens, cost_usd=None, price=why)
    usd = round(tokens * per_million / 1_000_000, 8)
    said = f"about ${usd:.4f}" if usd >= 0.0001 else "less than $0.0001"
    return Cost(
        texts=texts,
        tokens=tokens,
        cost_usd=usd,
        price=f"{said} at ${per_million:g} a million tokens",
    )
