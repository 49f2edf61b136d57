"""The app keeps OpenSSL out of its process until an HTTPS request needs it (wire.defer_tls),
and a request made then still speaks HTTPS; hashes are the same without OpenSSL."""

import hashlib
import hmac
import json
import socket
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/maps")

# Run in a process of its own: defer_tls changes what the process may import.
SCRIPT = textwrap.dedent(
    """
    import json, sys
    from nodwyn import wire
    wire.defer_tls()
    import nodwyn.desktop.app, nodwyn.api.routes, nodwyn.cli.agents  # what the app loads

    def openssl():
        return sorted({line.split()[-1].rsplit("/", 1)[-1] for line in open("/proc/self/maps")
                       if "libcrypto" in line or "libssl" in line})

    import hashlib, hmac
    seen = {"before": openssl(), "ssl_module": sys.modules.get("ssl") is not None,
            "sha256": hashlib.sha256(b"nodwyn").hexdigest(),
            "blake2b": hashlib.blake2b(b"nodwyn", digest_size=12).hexdigest(),
            "hmac": hmac.new(b"key", b"nodwyn", "sha256").hexdigest()}

    class Failed(Exception):
        pass

    try:
        wire.post(sys.argv[1], {}, {}, 5, Failed, "an answer")
    except Failed as exc:
        seen["error"] = str(exc)
    import http.client, urllib.request
    seen["after"] = openssl()
    seen["https"] = [hasattr(http.client, "HTTPSConnection"),
                     hasattr(urllib.request, "HTTPSHandler")]
    print(json.dumps(seen))
    """
)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again as the block ends: nothing listens


def test_openssl_loads_with_the_first_https_request_and_hashes_stay_the_same():
    address = f"https://127.0.0.1:{closed_port()}/v1/embeddings"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, address], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["before"] == [] and not seen["ssl_module"]
    assert seen["sha256"] == hashlib.sha256(b"nodwyn").hexdigest()
    assert seen["blake2b"] == hashlib.blake2b(b"nodwyn", digest_size=12).hexdigest()
    assert seen["hmac"] == hmac.new(b"key", b"nodwyn", "sha256").hexdigest()
    # The request got as far as connecting over HTTPS: refused, not "unknown url type".
    assert "refused" in seen["error"].lower() and "unknown url type" not in seen["error"]
    assert any(name.startswith("libssl") for name in seen["after"])
    assert seen["https"] == [True, True]
