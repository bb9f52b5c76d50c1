"""`harness9 login`: store a service's API key for when the environment has none.

The key is read from the terminal without echo (or from stdin when it is not a terminal, for
scripts) and stored 0600 in the user's config folder (`harness9.service.credentials`).
"""

from __future__ import annotations

import getpass
import sys

from harness9.provider.endpoints import KEY_VARIABLES
from harness9.service.credentials import store_key


def login_command(provider: str | None, remove: bool) -> int:
    """Ask for the key of `provider` (asked for too when None) and store it, or forget it."""
    if provider is None:
        provider = _ask(f"Service ({' or '.join(KEY_VARIABLES)}): ").strip() or "openai"
    variable = KEY_VARIABLES.get(provider)
    if variable is None:
        print(f"harness9 login: unknown service {provider!r}: use "
              f"{' or '.join(KEY_VARIABLES)}", file=sys.stderr)
        return 2
    if remove:
        path = store_key(variable, None)
        print(f"Forgot the {provider} key ({path}).")
        return 0
    key = (getpass.getpass(f"{variable}: ") if sys.stdin.isatty()
           else sys.stdin.readline()).strip()
    if not key:
        print("harness9 login: no key given; nothing stored", file=sys.stderr)
        return 1
    path = store_key(variable, key)
    print(f"Stored the {provider} key in {path} (only you can read it); {variable} in the "
          "environment still wins over it.")
    return 0


def _ask(prompt: str) -> str:
    print(prompt, end="", flush=True)
    return sys.stdin.readline()
