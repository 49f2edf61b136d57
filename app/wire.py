"""One JSON request to a provider the person chose (embeddings, summaries), over plain urllib.

Shared by memory/meaning/providers.py and summarizing/providers.py: both POST a JSON body with their
own headers and read a JSON answer, and both must never follow a redirect (urllib would send
the key's header on to whatever address the answer names). A failure raises the caller's
error class with one sentence naming the address; an HTTP error also carries its status and
the server's own words (`status`, `said`: "Unsupported parameter: 'max_tokens' ..."), so a
caller can tell a refused parameter from a refused key.

These requests are the only HTTPS the app makes, so the app keeps OpenSSL out of its process
until one is made (`defer_tls`): bottle imports hashlib, hmac and http.client (and with it
ssl) as it loads, for cookies and status lines the app never signs or sends over TLS, and
OpenSSL's library and initialisation were 4 MB of the app at rest (ADR 0060). hashlib then
uses Python's own SHA-2 and BLAKE2 (the app's ids are BLAKE2, which hashlib takes from
Python's own module in any case); the first request loads ssl and gives http.client and
urllib.request their HTTPS again (`_tls`).
"""

import functools
import importlib
import json
import sys
import threading

DEFERRED = ("_hashlib", "ssl", "_ssl")  # OpenSSL's modules, kept out by defer_tls
_LOADING = threading.Lock()  # two first requests at once load ssl once


def defer_tls() -> None:
    """Keep OpenSSL's modules from loading in this process until `post` needs them: imports of
    them fail meanwhile, which hashlib, hmac, http.client and urllib.request all allow for (a
    Python built without OpenSSL). Call it before anything imports them; a module already
    loaded is left as it is."""
    for name in DEFERRED:
        sys.modules.setdefault(name, None)


def post(address: str, body: dict, headers: dict, timeout: float, failed: type, what: str):
    """The decoded JSON answer of POST `address`; `failed(sentence)` raised when the server
    cannot be reached, answers an HTTP error or answers something that is not JSON."""
    opener = _opener()
    import urllib.error
    import urllib.request

    data = json.dumps(body).encode()
    request = urllib.request.Request(
        address, data=data, headers={"Content-Type": "application/json", **headers}
    )
    try:
        with opener.open(request, timeout=timeout) as answer:
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


@functools.cache
def _opener():
    """urllib's opener with HTTPS, following no redirect: a redirect is an error the person
    sees instead."""
    _tls()
    import urllib.request

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):
            return None

    return urllib.request.build_opener(Stay)


def _tls() -> None:
    """ssl loaded, and http.client's and urllib.request's HTTPS classes made with it, where
    defer_tls kept it out (hashlib keeps Python's own digests)."""
    with _LOADING:
        if sys.modules.get("ssl", True) is not None:
            return  # loaded, or never deferred: urllib.request gets it as it loads
        for name in ("ssl", "_ssl"):
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
        import http.client

        if not hasattr(http.client, "HTTPSConnection"):  # reloaded in place: bottle's and
            importlib.reload(http.client)  # http.server's references see its HTTPS class
        made = sys.modules.get("urllib.request")
        if made is not None and not hasattr(made, "HTTPSHandler"):
            importlib.reload(made)


def _said(exc) -> str:
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
