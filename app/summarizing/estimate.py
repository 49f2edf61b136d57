"""What summarizing past tasks would send, where, and what it would cost, before anything is
sent (ADR 0033). Nothing here opens a socket.

What is sent: for each task, its turns not covered yet by a provider's summary, as their cards
(vectors.card_text: the prompt, the start of the answer, the files, commands and errors), after
one instruction, in requests of at most CHUNK characters; each request's answer becomes a close
summary of exactly those seqs (by="provider"), so a run stopped anywhere goes on where it
stopped and no turn is summarized twice.

Tokens are estimated as characters / 4, rounded up, per request (the rule of thumb for English
and code; the test server counts what it received the same way). Output is bounded by
MAX_TOKENS a request (with a reasoning model's room to think: Summarizer.output_tokens), so
the output figure is an upper bound. The cost is the model's price in
importers/prices.json where it is known, else "price unknown"; Ollama runs on the person's own
machine and costs nothing. The time is a rough figure at RATES tokens a second.

The estimate's token is a hash of the provider, address, model and every request's task, seqs
and text: a run must present it, and is refused when the tasks changed meanwhile, so what runs
is what the person saw.
"""

import hashlib
import math
from pathlib import Path

import msgspec

from ..errors import BadInput
from ..importers.prices import price_of
from ..memory.cards import summaries
from ..memory.meaning.vectors import card_text
from ..memory.readback import turn_cards
from ..tasks.store import Store
from .providers import Summarizer

CHUNK = 24_000  # characters of cards in one request (about 6,000 tokens)
MAX_TOKENS = 400  # the most a summary may be, in tokens
CHARS_PER_TOKEN = 4
# (input, output) tokens a second: a local model on an ordinary CPU, a hosted one
RATES = {"ollama": (300, 12), "openai": (3000, 60), "anthropic": (3000, 60)}
INSTRUCTION = (
    "Summarize what these turns of a coding task came to, in at most 150 words: what was "
    "asked, what was decided and done, what is left open. Plain text, no preamble.\n"
)


class Request(msgspec.Struct, frozen=True, kw_only=True):
    task: str
    title: str
    first_seq: int
    last_seq: int
    turns: int
    prompt: str  # exactly the text sent
    input_tokens: int


class Estimate(msgspec.Struct, kw_only=True):
    provider: str
    model: str
    address: str
    tasks: int
    turns: int
    requests: list[Request]
    input_tokens: int
    output_tokens: int  # at most
    cost_usd: float | None  # None: the price is unknown
    price: str  # the cost in words: "$0.0123", "free (Ollama)", "price unknown"
    seconds: int
    sentence: str  # exactly what would be sent where
    token: str


def tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def chosen_tasks(store: Store, tasks: list[str], project: str = "") -> list:
    """The tasks named, or every task of the folder `project` (archived ones too)."""
    if project:
        folder = str(Path(project).expanduser().resolve())
        found = [t for t in store.list(archived=None) if t.project == folder]
        if not found:
            raise BadInput(f"no task in the folder {folder}")
        return found
    if not tasks:
        raise BadInput("name a task or a folder to summarize")
    return [store.get(task) for task in tasks]


def covered(store: Store, task: str) -> list[tuple[int, int]]:
    """The seqs a provider's summaries of the task already cover."""
    found = summaries.of_log(store.log_path(task))
    return [(s.first_seq, s.last_seq) for s in found if s.by == "provider"]


def requests_of(store: Store, info) -> list[Request]:
    done = covered(store, info.id)
    runs, run = [], []
    for card in turn_cards(store, info.id):
        if any(a <= card.first_seq <= b for a, b in done):
            runs, run = runs + [run] if run else runs, []
            continue
        run.append(card)
    runs = runs + [run] if run else runs
    return [_request(info, chunk) for each in runs for chunk in _chunks(each, info.project)]


def _chunks(cards, project: str):
    chunk, size = [], 0
    for card in cards:
        text = (
            f"\n## Turn at seqs {card.first_seq}-{card.last_seq or card.first_seq} "
            f"({card.outcome})\n{card_text(card)}\n"
        )
        if chunk and size + len(text) > CHUNK:
            yield chunk
            chunk, size = [], 0
        chunk.append((card, text))
        size += len(text)
    if chunk:
        yield chunk


def _request(info, chunk) -> Request:
    head = f"{INSTRUCTION}\nTask: {info.title}\nFolder: {info.project}\n"
    prompt = head + "".join(text for _, text in chunk)
    last = chunk[-1][0]
    return Request(
        task=info.id,
        title=info.title,
        first_seq=chunk[0][0].first_seq,
        last_seq=last.last_seq or last.first_seq,
        turns=len(chunk),
        prompt=prompt,
        input_tokens=tokens(prompt),
    )


def estimate(
    store: Store,
    summarizer: Summarizer,
    tasks: list[str],
    project: str = "",
) -> Estimate:
    chosen = chosen_tasks(store, tasks, project)
    requests = [r for info in chosen for r in requests_of(store, info)]
    inputs = sum(r.input_tokens for r in requests)
    outputs = summarizer.output_tokens(MAX_TOKENS) * len(requests)
    cost, price = _cost(summarizer, inputs, outputs)
    rate_in, rate_out = RATES[summarizer.kind]
    seconds = math.ceil(len(requests) + inputs / rate_in + outputs / rate_out)
    named = len({r.task for r in requests})
    sentence = (
        f"{len(requests)} request(s) holding the cards of {sum(r.turns for r in requests)} "
        f"turn(s) of {named} task(s) (their prompts, the start of each answer, files, "
        f"commands and errors, redacted) would be sent to {summarizer.address} for the model "
        f"{summarizer.model}; nothing else is sent."
    )
    return Estimate(
        provider=summarizer.kind,
        model=summarizer.model,
        address=summarizer.address,
        tasks=named,
        turns=sum(r.turns for r in requests),
        requests=requests,
        input_tokens=inputs,
        output_tokens=outputs,
        cost_usd=cost,
        price=price,
        seconds=seconds,
        sentence=sentence,
        token=token_of(summarizer, requests),
    )


def _cost(summarizer: Summarizer, inputs: int, outputs: int) -> tuple[float | None, str]:
    if summarizer.kind == "ollama":
        return 0.0, "free (Ollama runs it; no price)"
    prices = price_of(summarizer.model)
    if prices is None:
        return None, f"price unknown ({summarizer.model} is not in the price table)"
    cost = round((inputs * prices["input"] + outputs * prices["output"]) / 1_000_000, 6)
    return cost, f"at most ${cost:.4f}"


def token_of(summarizer: Summarizer, requests: list[Request]) -> str:
    digest = hashlib.sha256(f"{summarizer.kind}\0{summarizer.address}\0{summarizer.model}".encode())
    for r in requests:
        digest.update(f"\0{r.task}\0{r.first_seq}\0{r.last_seq}\0".encode())
        digest.update(r.prompt.encode())
    return digest.hexdigest()[:32]
