"""One JSON request to a provider the person chose (embeddings, summaries), over plain urllib.

Shared by memory/meaning/providers.py and summarizing/providers.py: both POST a JSON body with their
own headers and read a JSON answer, and both must never follow a redirect (urllib would send
the key's header on to whatever address the answer names). A failure raises the caller's
error class with one sentence naming the address; an HTTP error also carries its status and
the server's own words (`status`, `said`: "Unsupported parameter: 'max_tokens' ..."), so a
caller can tell a refused parameter from a refused key.
"""

import json
import urllib.error
import urllib.request


class _Stay(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed: a redirect is an error the person sees instead."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def post(address: str, body: dict, headers: dict, timeout: float, failed: type, what: str):
    """The decoded JSON answer of POST `address`; `failed(sentence)` raised when the server
    cannot be reached, answers an HTTP error or answers something that is not JSON."""
    data = json.dumps(body).encode()
    request = urllib.request.Request(
        address, data=data, headers={"Content-Type": "application/json", **headers}
    )
    try:
        with urllib.request.build_opener(_Stay).open(request, timeout=timeout) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        said = _said(exc)
        error = failed(
            f"{address} answered {exc.code} {exc.reason}" + (f": {said}" if said else "")
        )
        error.status, error.said = exc.code, said
        raise error from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise failed(f"cannot get {what} from {address}: {exc}") from None


def _said(exc: urllib.error.HTTPError) -> str:
    """The message of an error's JSON body, as OpenAI-format servers, Anthropic, Ollama and
    FastAPI-based ones (vLLM) put it; "" when there is none. At most 300 characters."""
    try:
        body = json.loads(exc.read(65_536) or b"null")
    except (OSError, ValueError):
        return ""
    found = (
        body.get("error", body.get("message", body.get("detail")))
        if isinstance(body, dict)
        else None
    )
    if isinstance(found, dict):
        found = found.get("message")
    if isinstance(found, list):  # FastAPI's validation errors: where, and what
        found = "; ".join(_problem(each) for each in found)
    return " ".join(str(found).split())[:300] if found else ""


def _problem(each) -> str:
    if not isinstance(each, dict):
        return str(each)
    where = ".".join(str(part) for part in each.get("loc", ()))
    return f"{where}: {each.get('msg', '')}" if where else str(each.get("msg", each))
