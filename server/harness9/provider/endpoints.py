"""Where each service is and which variables configure it: the names errors point the user to."""

from __future__ import annotations

import os
from collections.abc import Mapping

KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
URL_VARIABLES = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
# The services' own endpoints, as the SDKs default to them: a key alone is enough to start.
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
                   "all_proxy", "NO_PROXY", "no_proxy")


def auth_advice(provider: str, base_url: str | None) -> str:
    """What to change when the service refuses the key."""
    key = KEY_VARIABLES.get(provider, "the API key")
    where = f" by {base_url}" if base_url else ""
    url = URL_VARIABLES.get(provider)
    return (f"; the key in {key} was refused{where}: set a valid key there (or, if the key "
            f"belongs to another service, {url} to that service's URL)")


def path_advice(provider: str, base_url: str | None) -> str:
    """What to change when the service knows no such endpoint (a wrong base URL)."""
    url = URL_VARIABLES.get(provider, "the base URL")
    return (f"; {base_url or 'the service'} has no such endpoint: check {url} (an OpenAI-"
            "compatible URL usually ends in /v1)")


def model_advice(model: str, offered: list[str]) -> str:
    """What to change when the service does not know the model."""
    some = ", ".join(offered[:8]) + (", …" if len(offered) > 8 else "")
    listed = f"; it offers: {some}" if offered else ""
    return (f"; the model {model!r} is not offered there: choose another with the `model` "
            f"setting, HARNESS9_MODEL or /model (which lists them){listed}")


def network_advice(provider: str, base_url: str | None,
                   env: Mapping[str, str] | None = None) -> str:
    """What to check when the service cannot be reached: its URL and the proxies in use."""
    env = os.environ if env is None else env
    url = URL_VARIABLES.get(provider, "the base URL")
    proxies = [f"{name}={env[name]}" for name in PROXY_VARIABLES if env.get(name)]
    through = f"through {', '.join(proxies)}" if proxies else "with no proxy variable set"
    return (f"; tried {base_url or 'the service'} {through}: check {url} and the network "
            "(HTTPS_PROXY for a proxy)")
