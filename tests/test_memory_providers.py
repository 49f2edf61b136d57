"""Providers' embeddings (Ollama /api/embed, OpenAI-format /v1/embeddings) against a small
HTTP server on 127.0.0.1 that speaks each format; search falls back to words when it fails."""

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from nodwyn import memory, settings
from nodwyn.log import records as r
from nodwyn.memory.meaning import providers, vectors
from nodwyn.tasks.store import Store

DIMS = 16


def embedding(text: str) -> list[float]:
    """Hashed bag of words: texts sharing words point the same way."""
    vector = [0.0] * DIMS
    for word in text.lower().split():
        vector[hashlib.md5(word.encode()).digest()[0] % DIMS] += 1.0
    return vector


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.seen.append((self.path, dict(self.headers), body))
        if self.server.broken:
            self.send_response(500)
            self.end_headers()
            return
        texts = body["input"]
        if self.path == "/api/embed":
            answer = {"model": body["model"], "embeddings": [embedding(t) for t in texts]}
        elif self.path == "/v1/embeddings":
            items = [{"object": "embedding", "index": i, "embedding": embedding(t)}
                     for i, t in enumerate(texts)]  # fmt: skip
            answer = {"object": "list", "data": items[::-1], "model": body["model"]}
        else:
            self.send_response(404)
            self.end_headers()
            return
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.seen, httpd.broken = [], False
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def store(data_dir) -> Store:
    store = Store(data_dir)
    start = r.SessionStart(project="/work/p", origin=r.Origin(tool="claude-code"))
    with store.create(start, "t1") as writer:
        writer.append(
            [
                r.Message(text="the wallet cannot sign", at="2026-11-29T10:00:00.000Z"),
                r.Reply(text="fixed the signer", at="2026-11-29T10:00:01.000Z"),
                r.Message(text="bake some bread", at="2026-11-29T10:00:02.000Z"),
                r.Reply(text="baked", at="2026-11-29T10:00:03.000Z"),
            ]
        )
    return store


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_a_provider_gives_vectors_in_its_format(server, kind, monkeypatch):
    monkeypatch.setenv(providers.KEY_VARIABLE, "sk-test-123")
    url = f"http://127.0.0.1:{server.server_port}"
    found = providers.Provider(kind, url, "tiny-embed").encode(["wallet sign", "bread", "x y"])
    expected = np.array([embedding(t) for t in ["wallet sign", "bread", "x y"]], np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(found, expected)  # in input order, even when answered out of order
    path, headers, body = server.seen[0]
    assert path == providers.PATHS[kind]
    assert body == {"model": "tiny-embed", "input": ["wallet sign", "bread", "x y"]}
    assert headers["Authorization"] == "Bearer sk-test-123"


def test_search_by_meaning_through_a_provider_sends_cards_and_the_query(server, store):
    url = f"http://127.0.0.1:{server.server_port}"
    settings.update(store.root, embeddings="ollama", embeddings_url=url, embeddings_model="m")
    memory.encode(store)  # the background's work: a search sends its query alone
    found = memory.search(store, "wallet signing", mode="meaning")
    assert found.mode == "meaning"
    assert found.turns[0].asked == "the wallet cannot sign"
    sent = [text for _, _, body in server.seen for text in body["input"]]
    assert "wallet signing" in sent
    assert any("the wallet cannot sign" in text.split("\n")[:2] for text in sent)
    vec = vectors.load(store.log_path("t1"))
    assert vec.model == f"ollama:m@{url}" and vec.dims == DIMS


def test_a_failing_provider_leaves_words_alone(server, store):
    url = f"http://127.0.0.1:{server.server_port}"
    settings.update(store.root, embeddings="openai", embeddings_url=url, embeddings_model="m")
    server.broken = True
    found = memory.search(store, "wallet", mode="both")
    assert found.mode == "words"
    assert [turn.asked for turn in found.turns] == ["the wallet cannot sign"]
    with pytest.raises(providers.ProviderFailed, match="500"):
        providers.Provider("openai", url, "m").encode(["x"])


def test_a_provider_needs_an_address_and_a_model(store):
    with pytest.raises(providers.ProviderFailed):
        providers.Provider("ollama", "127.0.0.1:11434", "m")
    with pytest.raises(providers.ProviderFailed):
        providers.Provider("openai", "http://127.0.0.1:1", "")
    settings.update(store.root, embeddings="ollama")  # no address: words alone, no error
    assert memory.search(store, "wallet", mode="both").mode == "words"


class Redirecting(BaseHTTPRequestHandler):
    """A server that sends every request on to another address (self.server.to)."""

    def do_POST(self):  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(302)
        self.send_header("Location", self.server.to)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):  # noqa: N802 (http.server's name)
        self.server.seen.append(dict(self.headers))
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = do_GET  # noqa: N815 (http.server's name)

    def log_message(self, *args):
        pass


def test_the_api_key_is_not_sent_on_to_an_address_the_server_redirects_to():
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), Redirecting) for _ in range(2)]
    first, elsewhere = servers
    first.to = f"http://127.0.0.1:{elsewhere.server_port}/v1/embeddings"
    for httpd in servers:
        httpd.seen = []
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{first.server_port}"
        provider = providers.Provider("openai", url, "m", "sk-only-for-the-first")
        with pytest.raises(providers.ProviderFailed, match="302"):
            provider.encode(["wallet"])
        assert not any("sk-only-for-the-first" in str(headers) for headers in elsewhere.seen)
    finally:
        for httpd in servers:
            httpd.shutdown()
            httpd.server_close()
