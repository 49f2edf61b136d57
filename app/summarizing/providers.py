"""The model that summarizes past tasks, when the person chooses one in Settings (off by
default; ADR 0033). Three wire formats, each one JSON POST through wire.post:

- "ollama" (local, the default address http://127.0.0.1:11434): POST /api/chat
  {"model", "messages": [{"role": "user", "content"}], "stream": false,
   "options": {"num_predict"}} -> {"message": {"content"}, "prompt_eval_count", "eval_count"}
- "openai" (OpenAI, llama.cpp's server, LM Studio, vLLM): POST /v1/chat/completions
  {"model", "messages", "max_tokens"} with "Authorization: Bearer <key>" when a key is set
  -> {"choices": [{"message": {"content"}}], "usage": {"prompt_tokens", "completion_tokens"}}
- "anthropic" (default address https://api.anthropic.com): POST /v1/messages
  {"model", "max_tokens", "messages"} with "x-api-key" and "anthropic-version: 2023-06-01"
  -> {"content": [{"type": "text", "text"}], "usage": {"input_tokens", "output_tokens"}}

The key is the one kept in `<data>/summaries.key` (settings.py), else NODWYN_SUMMARIES_KEY.
"""

import os

import msgspec

from .. import wire
from ..errors import NodwynError

KINDS = ("ollama", "openai", "anthropic")
PATHS = {"ollama": "/api/chat", "openai": "/v1/chat/completions", "anthropic": "/v1/messages"}
ADDRESSES = {"ollama": "http://127.0.0.1:11434", "anthropic": "https://api.anthropic.com"}
ANTHROPIC_VERSION = "2023-06-01"
TIMEOUT = 300  # seconds for one summary (a local model on a CPU is slow)
KEY_VARIABLE = "NODWYN_SUMMARIES_KEY"


class SummarizerFailed(NodwynError):
    """The summaries provider could not be reached or answered nonsense."""


class Answer(msgspec.Struct, frozen=True):
    text: str
    input_tokens: int | None = None  # as the provider counted them, when it says
    output_tokens: int | None = None


class Summarizer:
    def __init__(self, kind: str, url: str, model: str, key: str = ""):
        if kind not in KINDS:
            raise SummarizerFailed(f"summaries are off, {', '.join(KINDS)}; not {kind!r}")
        url = (url or ADDRESSES.get(kind, "")).rstrip("/")
        if not url.startswith(("http://", "https://")) or not model:
            raise SummarizerFailed(f"{kind} summaries need an http(s) address and a model name")
        self.kind, self.model, self._key = kind, model, key
        self.address = url + PATHS[kind]

    def body(self, prompt: str, max_tokens: int) -> dict:
        messages = [{"role": "user", "content": prompt}]
        if self.kind == "ollama":
            options = {"num_predict": max_tokens}
            return {"model": self.model, "messages": messages, "stream": False, "options": options}
        return {"model": self.model, "max_tokens": max_tokens, "messages": messages}

    def headers(self) -> dict:
        key = self._key or os.environ.get(KEY_VARIABLE, "")
        if self.kind == "anthropic":
            return {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
        return {"Authorization": f"Bearer {key}"} if key else {}

    def summarize(self, prompt: str, max_tokens: int) -> Answer:
        data = wire.post(self.address, self.body(prompt, max_tokens), self.headers(), TIMEOUT,
                         SummarizerFailed, "a summary")  # fmt: skip
        try:
            answer = self._answer(data)
        except (KeyError, TypeError, IndexError, AttributeError):
            raise SummarizerFailed(f"{self.address} answered in another format") from None
        if not answer.text.strip():
            raise SummarizerFailed(f"{self.address} answered an empty summary")
        return answer

    def _answer(self, data) -> Answer:
        if self.kind == "ollama":
            return Answer(data["message"]["content"], data.get("prompt_eval_count"),
                          data.get("eval_count"))  # fmt: skip
        if self.kind == "openai":
            usage = data.get("usage") or {}
            return Answer(data["choices"][0]["message"]["content"] or "",
                          usage.get("prompt_tokens"), usage.get("completion_tokens"))  # fmt: skip
        text = "".join(b["text"] for b in data["content"] if b.get("type") == "text")
        usage = data.get("usage") or {}
        return Answer(text, usage.get("input_tokens"), usage.get("output_tokens"))
