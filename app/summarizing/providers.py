"""The model that summarizes past tasks, when the person chooses one in Settings (off by
default; ADR 0033). Three wire formats, each one JSON POST through wire.post:

- "ollama" (local, the default address http://127.0.0.1:11434): POST /api/chat
  {"model", "messages": [{"role": "user", "content"}], "stream": false,
   "options": {"num_predict"}} -> {"message": {"content"}, "prompt_eval_count", "eval_count"}
- "openai" (OpenAI, the default address https://api.openai.com; llama.cpp's server, LM Studio,
  vLLM): POST /v1/chat/completions
  {"model", "messages", "max_tokens" or "max_completion_tokens"} with "Authorization: Bearer
  <key>" when a key is set
  -> {"choices": [{"message": {"content"}}], "usage": {"prompt_tokens", "completion_tokens"}}
- "anthropic" (default address https://api.anthropic.com): POST /v1/messages
  {"model", "max_tokens", "messages"} with "x-api-key" and "anthropic-version: 2023-06-01"
  -> {"content": [{"type": "text", "text"}], "usage": {"input_tokens", "output_tokens"}}

The key is the one kept in `<data>/summaries.key` (settings.py), else NODWYN_SUMMARIES_KEY.

The cap on an OpenAI-format answer (ADR 0043): OpenAI's reasoning models (the o-series and
gpt-5 families, REASONING) refuse `max_tokens` ("Unsupported parameter: 'max_tokens' is not
supported with this model. Use 'max_completion_tokens' instead.") and count their hidden
reasoning in `max_completion_tokens`, so they get that one, with THINKING tokens of room to
reason before the summary. Every other model gets `max_tokens`, which every OpenAI-format
server reads (older llama.cpp and llama-cpp-python servers ignore `max_completion_tokens` and
write without a cap). A server that refuses the one sent, naming it, is asked once more with
the other, and this summarizer keeps to that one for its later requests.
"""

import os
import re
from pathlib import Path

import msgspec

from .. import settings, wire
from ..errors import NodwynError

KINDS = ("ollama", "openai", "anthropic")
PATHS = {"ollama": "/api/chat", "openai": "/v1/chat/completions", "anthropic": "/v1/messages"}
# the address when none is given (the page shows these, and sends to them)
ADDRESSES = {
    "ollama": "http://127.0.0.1:11434",
    "openai": "https://api.openai.com",
    "anthropic": "https://api.anthropic.com",
}
ANTHROPIC_VERSION = "2023-06-01"
TIMEOUT = 300  # seconds for one summary (a local model on a CPU is slow)
KEY_VARIABLE = "NODWYN_SUMMARIES_KEY"
# OpenAI's reasoning models: o1, o3, o4-mini, gpt-5, gpt-5-mini, gpt-5.1... (a router's
# "openai/" prefix allowed)
REASONING = re.compile(r"(?:^|/)(?:o\d|gpt-5)(?:$|[-.:_])", re.IGNORECASE)
THINKING = 4_000  # tokens a reasoning model may spend thinking before its summary
CAPS = ("max_tokens", "max_completion_tokens")


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
        reasoning = kind == "openai" and REASONING.search(model) is not None
        self.cap = CAPS[1] if reasoning else CAPS[0]  # the parameter that caps an answer

    def output_tokens(self, max_tokens: int) -> int:
        """The most tokens one answer may be (and cost): a summary's, and with
        max_completion_tokens the reasoning's room too, as that one counts both."""
        return max_tokens + (THINKING if self.cap == "max_completion_tokens" else 0)

    def body(self, prompt: str, max_tokens: int) -> dict:
        messages = [{"role": "user", "content": prompt}]
        if self.kind == "ollama":
            options = {"num_predict": max_tokens}
            return {"model": self.model, "messages": messages, "stream": False, "options": options}
        if self.kind == "openai":
            return {
                "model": self.model,
                self.cap: self.output_tokens(max_tokens),
                "messages": messages,
            }
        return {"model": self.model, "max_tokens": max_tokens, "messages": messages}

    def headers(self) -> dict:
        key = self._key or os.environ.get(KEY_VARIABLE, "")
        if self.kind == "anthropic":
            return {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
        return {"Authorization": f"Bearer {key}"} if key else {}

    def summarize(self, prompt: str, max_tokens: int) -> Answer:
        try:
            data = self._post(prompt, max_tokens)
        except SummarizerFailed as exc:
            if not self._refused_cap(exc):
                raise
            self.cap = CAPS[1 - CAPS.index(self.cap)]  # the other one, from now on
            data = self._post(prompt, max_tokens)
        try:
            answer = self._answer(data)
        except (KeyError, TypeError, IndexError, AttributeError):
            raise SummarizerFailed(f"{self.address} answered in another format") from None
        if not answer.text.strip():
            raise SummarizerFailed(
                f"{self.address} answered an empty summary"
                + (
                    f" (its cap of {self.output_tokens(max_tokens):,} tokens was reached)"
                    if _cut_short(data)
                    else ""
                )
            )
        return answer

    def _post(self, prompt: str, max_tokens: int):
        return wire.post(
            self.address,
            self.body(prompt, max_tokens),
            self.headers(),
            TIMEOUT,
            SummarizerFailed,
            "a summary",
        )

    def _refused_cap(self, exc: SummarizerFailed) -> bool:
        """Whether an OpenAI-format server refused the request for the cap's parameter: a
        400 or 422 whose words name it before the other ("Unsupported parameter: 'max_tokens'
        ... Use 'max_completion_tokens' instead", vLLM's "body.max_completion_tokens: Extra
        inputs are not permitted")."""
        said = getattr(exc, "said", "")
        if self.kind != "openai" or getattr(exc, "status", 0) not in (400, 422):
            return False
        named = sorted((said.find(cap), cap) for cap in CAPS if cap in said)
        return bool(named) and named[0][1] == self.cap

    def _answer(self, data) -> Answer:
        if self.kind == "ollama":
            return Answer(
                data["message"]["content"], data.get("prompt_eval_count"), data.get("eval_count")
            )
        if self.kind == "openai":
            usage = data.get("usage") or {}
            return Answer(
                data["choices"][0]["message"]["content"] or "",
                usage.get("prompt_tokens"),
                usage.get("completion_tokens"),
            )
        text = "".join(b["text"] for b in data["content"] if b.get("type") == "text")
        usage = data.get("usage") or {}
        return Answer(text, usage.get("input_tokens"), usage.get("output_tokens"))


def _cut_short(data) -> bool:
    """Whether the answer stopped at its cap (OpenAI: "length"; Anthropic: "max_tokens")."""
    try:
        if "choices" in data:
            return data["choices"][0].get("finish_reason") == "length"
        return data.get("stop_reason") == "max_tokens" or data.get("done_reason") == "length"
    except (AttributeError, IndexError, KeyError, TypeError):
        return False


def keep_key(root: Path, before, after, key: str | None) -> None:
    """The provider chosen (`after`, settings.Settings) checked before anything is kept; its key
    kept apart when one is given ("" forgets it), and forgotten when the address or the
    provider changed without one (it was for that server: an OpenAI key is not sent to
    Anthropic). Settings > Summaries and `nodwyn settings summaries`."""
    if after.summaries != "off":
        Summarizer(after.summaries, after.summaries_url, after.summaries_model)
    kinds = (before.summaries, after.summaries)
    switched = "off" not in kinds and kinds[0] != kinds[1]
    if key is not None:
        settings.set_embeddings_key(root, key, "summaries")
    elif switched or after.summaries_url != before.summaries_url:
        settings.set_embeddings_key(root, "", "summaries")
