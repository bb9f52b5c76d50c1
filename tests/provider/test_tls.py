"""The SDK clients share one TLS context, made as the HTTP library makes its own: a service whose
certificate `SSL_CERT_FILE` trusts is reached over HTTPS, one it does not trust is refused with a
certificate error. Each case runs in a fresh interpreter (the context is made once a process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).parents[2]

# Both providers answer one call through the fake LLM served over TLS with `cert`/`key`, then
# the probe prints what each call gave and whether their clients use the same context.
PROBE = """
import asyncio, json, ssl, sys
from harness9.provider import tls
from harness9.provider.factory import ProviderSettings, create_provider
from harness9.provider.provider_errors import ProviderError
from harness9.schema import Message
from tests.fakellm import FakeLLM, Reply

async def main(cert: str, key: str) -> None:
    fake = FakeLLM()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(cert, key)
    fake._server.socket = served.wrap_socket(fake._server.socket, server_side=True)
    url = fake.base_url.replace("http://", "https://")
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url + "/v1",
           "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": url}
    said, pools = {}, []
    with fake:
        fake.script([Reply("over tls"), Reply("over tls")])
        for name in ("openai", "anthropic"):
            provider = create_provider(ProviderSettings(provider=name, env=env, max_retries=0))
            try:
                said[name] = (await provider.generate([Message.user("hi")], None))[0].content
            except ProviderError as exc:
                said[name] = "refused: " + str(exc)
            pools.append(provider._client._client._transport._pool._ssl_context)
    shared = pools[0] is pools[1] is tls.start().result()
    print(json.dumps({"said": said, "shared": shared}))

asyncio.run(main(*sys.argv[1:]))
"""


def _certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=30)
    return cert, key


def _probe(cert: Path, key: Path, trusted: Path) -> dict[str, object]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT}:{ROOT / 'server'}",
           "SSL_CERT_FILE": str(trusted)}
    done = subprocess.run([sys.executable, "-c", PROBE, str(cert), str(key)], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=50)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_both_providers_reach_a_trusted_service_on_one_context(tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path, "service")
    result = _probe(cert, key, trusted=cert)
    assert result == {"said": {"openai": "over tls", "anthropic": "over tls"}, "shared": True}


def test_a_service_the_store_does_not_trust_is_refused(tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path, "service")
    other, _ = _certificate(tmp_path, "other")
    said = _probe(cert, key, trusted=other)["said"]
    assert isinstance(said, dict)
    for name in ("openai", "anthropic"):
        assert said[name].startswith("refused: ") and "CERTIFICATE_VERIFY_FAILED" in said[name]
