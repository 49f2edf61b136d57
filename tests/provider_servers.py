"""A local HTTP server (127.0.0.1, a free port) that speaks one summaries provider's real
request and response shapes (Ollama's /api/chat, OpenAI's /v1/chat/completions, Anthropic's
/v1/messages) or Voyage AI's embeddings (/v1/embeddings), keeping every request it got and
counting the connections made to it.

On /v1/chat/completions it refuses what the servers refuse: as OpenAI, `max_tokens` for its
reasoning models (o1, o3, o4-mini, the gpt-5 family), with OpenAI's own 400 answer; or, given
`refuse`, as another strict server (vLLM's FastAPI) that serves any model name, each parameter
named there, with its 422 answer."""

import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def ollama_answer(body: dict, text: str) -> dict:
    prompt = body["messages"][0]["content"]
    return {"model": body["model"], "created_at": "2026-12-02T10:00:00Z",
            "message": {"role": "assistant", "content": text}, "done_reason": "stop",
            "done": True, "prompt_eval_count": math.ceil(len(prompt) / 4),
            "eval_count": len(text.split())}  # fmt: skip


def openai_answer(body: dict, text: str) -> dict:
    prompt = body["messages"][0]["content"]
    usage = {"prompt_tokens": math.ceil(len(prompt) / 4), "completion_tokens": 9}
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {**usage, "total_tokens": usage["prompt_tokens"] + 9}}  # fmt: skip


def anthropic_answer(body: dict, text: str) -> dict:
    prompt = body["messages"][0]["content"]
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": body["model"],
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": math.ceil(len(prompt) / 4), "output_tokens": 9}}  # fmt: skip


VOYAGE_DIMS = 16


def voyage_embedding(text: str, input_type: str | None) -> list[float]:
    """A hashed bag of words (texts sharing words point the same way); a query's is turned a
    little, so a client that asks for queries as documents still finds, but not the same."""
    vector = [0.0] * VOYAGE_DIMS
    for word in text.lower().split():
        vector[sum(word.encode()) % VOYAGE_DIMS] += 1.0
    if input_type == "query":
        vector[0] += 0.25
    return vector


def voyage_answer(body: dict, text: str, headers: dict) -> dict | tuple[int, dict]:
    """Voyage AI's POST /v1/embeddings {input, model, input_type} with a bearer key; as Voyage
    does, a request without a key is refused (401), an input_type but null, "query" or
    "document" too (400)."""
    if not headers.get("authorization", "").startswith("Bearer "):
        return 401, {"detail": "Provide an API key."}
    if body.get("input_type") not in (None, "query", "document"):
        return 400, {"detail": "input_type must be query or document"}
    data = [{"object": "embedding", "embedding": voyage_embedding(t, body.get("input_type")),
             "index": i} for i, t in enumerate(body["input"])]  # fmt: skip
    tokens = sum(math.ceil(len(t) / 4) for t in body["input"])
    return {"object": "list", "data": data, "model": body["model"],
            "usage": {"total_tokens": tokens}}  # fmt: skip


def openai_refusal(body: dict, refuse: set[str]) -> tuple[int, dict] | None:
    # a reasoning model, under its own name or a deployment's (Azure: "prod-o3-summaries")
    reasoning = re.search(r"(?:^|[-/])(?:o[134]|gpt-5)", body.get("model", ""))
    if reasoning and "max_tokens" in body and not refuse:
        message = ("Unsupported parameter: 'max_tokens' is not supported with this model. "
                   "Use 'max_completion_tokens' instead.")  # fmt: skip
        return 400, {"error": {"message": message, "type": "invalid_request_error",
                               "param": "max_tokens", "code": "unsupported_parameter"}}  # fmt: skip
    for name in sorted(refuse & set(body)):
        problem = {"type": "extra_forbidden", "loc": ["body", name],
                   "msg": "Extra inputs are not permitted", "input": body[name]}  # fmt: skip
        return 422, {"detail": [problem]}
    return None


ANSWERS = {"/api/chat": ollama_answer, "/v1/chat/completions": openai_answer,
           "/v1/messages": anthropic_answer}  # fmt: skip
HEARS_HEADERS = {"/v1/embeddings": voyage_answer}  # answers that read the request's headers


class ProviderServer:
    def __init__(self, text: str = "The pager now keeps a ringbuffer; login still flaky.",
                 refuse: set[str] = frozenset()):  # fmt: skip
        self.text, self.requests, self.connections = text, [], 0
        self.refuse = set(refuse)
        self.answered = threading.Event()  # an answer was written back
        self.arrived = threading.Event()  # a request came in
        self.hold = threading.Event()  # cleared: each answer waits until it is set
        self.hold.set()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def setup(self):
                outer.connections += 1
                super().setup()

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                # header names are case-insensitive (urllib sends "X-api-key"): kept lowercase
                headers = {name.lower(): value for name, value in self.headers.items()}
                outer.requests.append((self.path, headers, body))
                outer.arrived.set()
                outer.hold.wait(timeout=60)
                if self.path in HEARS_HEADERS:
                    said = HEARS_HEADERS[self.path](body, outer.text, headers)
                elif self.path in ANSWERS:
                    said = ANSWERS[self.path](body, outer.text)
                else:
                    self.send_error(404)
                    return
                if self.path == "/v1/chat/completions":
                    said = openai_refusal(body, outer.refuse) or said
                status, said = said if isinstance(said, tuple) else (200, said)
                data = json.dumps(said).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                outer.answered.set()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.hold.set()
        self.server.shutdown()
        self.server.server_close()

    def tokens_received(self) -> int:
        """The prompts received, counted as the estimate counts (characters / 4, rounded up)."""
        return sum(math.ceil(len(body["messages"][0]["content"]) / 4)
                   for _, _, body in self.requests)  # fmt: skip

    def input_types(self) -> list[str | None]:
        """The input_type of each embeddings request, in order."""
        return [body.get("input_type") for _, _, body in self.requests]
