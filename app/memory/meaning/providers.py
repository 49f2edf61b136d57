"""A provider's embeddings, when the person chooses one in Settings (off by default).

Three wire formats, over plain HTTP(S) with urllib:
- "ollama": POST <url>/api/embed {"model", "input": [texts]} -> {"embeddings": [[floats]]}
- "openai": POST <url>/v1/embeddings {"model", "input": [texts]} -> {"data": [{"index",
  "embedding"}]} (OpenAI, llama.cpp's server, LM Studio, vLLM); an API key, if the server needs
  one, is the one set in Settings (kept apart from the settings, see settings.py) or else the
  environment variable NODWYN_EMBEDDINGS_KEY; it goes only into the Authorization header.
- "voyage": Voyage AI's POST <url>/v1/embeddings {"model", "input", "input_type"} -> the OpenAI
  shape; its models embed a search's words ("query") and the cards ("document") each their
  own way, so the two are asked for apart. A key is required (the same two places).

What leaves the machine: the text of every card (the prompt, the start of the answer, the files
and commands of each turn) and every compaction note, and each search's words, are sent to the
address chosen. With a local server (Ollama on 127.0.0.1) nothing leaves the computer; with a
remote one, all of it does. The built-in model sends nothing anywhere.

Failures raise ProviderFailed (a NodwynError); search then falls back to words alone.
"""

import os
from typing import TYPE_CHECKING

from ... import wire
from ...errors import NodwynError
from .models import normalised

if TYPE_CHECKING:  # numpy is imported where vectors are made: Settings reads this module
    import numpy as np

KINDS = ("ollama", "openai", "voyage")
PATHS = {"ollama": "/api/embed", "openai": "/v1/embeddings", "voyage": "/v1/embeddings"}
VOYAGE = "https://api.voyageai.com"  # Voyage AI's own address
BATCH = 64  # texts per request
TIMEOUT = 30  # seconds per request
KEY_VARIABLE = "NODWYN_EMBEDDINGS_KEY"


class ProviderFailed(NodwynError):
    """The embeddings provider could not be reached or answered nonsense."""


class Provider:
    def __init__(self, kind: str, url: str, model: str, key: str = ""):
        if kind not in KINDS:
            raise ProviderFailed(f"embeddings are builtin, {' or '.join(KINDS)}; not {kind!r}")
        if not url.startswith(("http://", "https://")) or not model:
            raise ProviderFailed(f"{kind} embeddings need an http(s) address and a model name")
        self.kind, self.model, self._key = kind, model, key
        self.address = url.rstrip("/") + PATHS[kind]
        self.id = f"{kind}:{model}@{url.rstrip('/')}"

    def encode(self, texts: list[str], input_type: str = "document") -> "np.ndarray":
        """(len(texts), dims) float32 rows of length 1."""
        import numpy as np

        rows: list[list[float]] = []
        for at in range(0, len(texts), BATCH):
            rows.extend(self._request(texts[at : at + BATCH], input_type))
        try:
            matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
        except ValueError:
            raise ProviderFailed(f"{self.address} answered vectors of unequal sizes") from None
        return normalised(matrix)

    def encode_query(self, text: str) -> "np.ndarray":
        """A search's words, as a query (Voyage embeds queries apart from documents)."""
        return self.encode([text], "query")[0]

    def _request(self, texts: list[str], input_type: str) -> list[list[float]]:
        headers = {}
        key = self._key or os.environ.get(KEY_VARIABLE)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        elif self.kind == "voyage":
            raise ProviderFailed("Voyage AI needs an API key: set it in Settings > Search")
        body = {"model": self.model, "input": texts}
        if self.kind == "voyage":
            body["input_type"] = input_type
        data = wire.post(self.address, body, headers, TIMEOUT, ProviderFailed, "embeddings")
        return self._vectors(data, len(texts))

    def _vectors(self, data, count: int) -> list[list[float]]:
        try:
            if self.kind == "ollama":
                vectors = data["embeddings"]
            else:
                vectors = [item["embedding"] for item in sorted(data["data"], key=_index)]
        except (KeyError, TypeError):
            raise ProviderFailed(f"{self.address} answered in another format") from None
        if not isinstance(vectors, list) or len(vectors) != count:
            raise ProviderFailed(f"{self.address} answered the wrong number of vectors")
        return vectors


def _index(item) -> int:
    return item.get("index", 0)
