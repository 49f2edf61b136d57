"""One JSON request to a provider the person chose (embeddings, summaries), over plain urllib.

Shared by memory/meaning/providers.py and summarizing/providers.py: both POST a JSON body with their
own headers and read a JSON answer, and both must never follow a redirect (urllib would send
the key's header on to whatever address the answer names). A failure raises the caller's
error class with one sentence naming the address.
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
        raise failed(f"{address} answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise failed(f"cannot get {what} from {address}: {exc}") from None
