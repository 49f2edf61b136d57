"""Voyage AI's embeddings for search by meaning (issue 40), against a local server that speaks
its format: the cards are sent as documents, a search's words as a query, with the key kept
as the other providers' keys are; what choosing it would cost is said before it is chosen."""

import math
import subprocess
import sys

import pytest
import test_memory_providers
from nodwyn import memory, settings
from nodwyn.api import settings_form
from nodwyn.errors import BadInput
from nodwyn.memory.meaning import cost, providers, vectors
from provider_servers import ProviderServer

store = pytest.fixture(test_memory_providers.store.__wrapped__, name="store")  # task t1's two turns


@pytest.fixture
def voyage():
    with ProviderServer() as server:
        yield server


def choose(store, url: str, key: str = "pa-test-key"):
    change = settings_form.SettingsChange(
        embeddings="voyage", embeddings_url=url, embeddings_model="voyage-3.5", embeddings_key=key
    )
    return settings_form.change(store.root, change)


def test_cards_go_as_documents_and_a_search_as_a_query_with_the_key(voyage, store):
    shown = choose(store, voyage.url)
    assert shown["embeddings_key_set"] and "pa-test-key" not in str(shown)
    memory.encode(store)
    assert voyage.input_types() == ["document"]
    found = memory.search(store, "wallet signing", mode="meaning")
    assert found.mode == "meaning"
    assert found.turns[0].asked == "the wallet cannot sign"
    path, _, body = voyage.requests[-1]
    assert (path, body["input_type"]) == ("/v1/embeddings", "query")
    assert body["input"] == ["wallet signing"]
    assert body["model"] == "voyage-3.5"
    assert {h["authorization"] for _, h, _ in voyage.requests} == {"Bearer pa-test-key"}
    assert vectors.load(store.log_path("t1")).model == f"voyage:voyage-3.5@{voyage.url}"


def test_voyage_without_a_key_is_refused_and_nothing_is_kept(voyage, store):
    with pytest.raises(BadInput, match="Voyage AI needs an API key"):
        choose(store, voyage.url, key="")
    assert settings.load(store.root).embeddings == "builtin"
    with pytest.raises(providers.ProviderFailed, match="needs an API key"):
        providers.Provider("voyage", voyage.url, "voyage-3.5").encode(["x"])
    assert voyage.requests == []  # refused before anything was sent


def test_the_estimate_counts_the_tokens_the_server_then_receives(voyage, store):
    before = cost.estimate(store, "voyage", "voyage-3.5", voyage.url)
    assert voyage.requests == []  # an estimate sends nothing
    choose(store, voyage.url)
    memory.encode(store)
    sent = [text for _, _, body in voyage.requests for text in body["input"]]
    assert before.texts == len(sent) == 2
    assert before.tokens == sum(math.ceil(len(text) / 4) for text in sent)
    assert before.cost_usd == pytest.approx(before.tokens * 0.06 / 1_000_000)
    assert before.price == "less than $0.0001 at $0.06 a million tokens"
    unknown = cost.estimate(store, "voyage", "voyage-99", voyage.url)
    assert unknown.cost_usd is None and unknown.price.startswith("price unknown")
    assert cost.estimate(store, "ollama", "m", "http://127.0.0.1:11434").price.startswith("free")


def test_the_command_line_chooses_voyage_and_says_what_it_would_cost(voyage, store, data_dir):
    settings.set_embeddings_key(store.root, "pa-test-key")
    done = subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", "settings", "embeddings", "voyage", voyage.url,
         "voyage-code-3"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, check=True,
    )  # fmt: skip
    assert "Your 2 cards and notes are about" in done.stdout
    assert "$0.18 a million tokens" in done.stdout
    chosen = settings.load(store.root)
    assert (chosen.embeddings, chosen.embeddings_model) == ("voyage", "voyage-code-3")
    assert voyage.requests == []
