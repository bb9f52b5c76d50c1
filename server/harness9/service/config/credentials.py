"""API keys stored by `harness9 login`, for when the environment has none.

The keys live in `credentials.json` in the user's config folder (`$XDG_CONFIG_HOME/harness9`),
a file only its owner may read (0600, written atomically). A variable set in the environment
always wins. The keys never enter the daemon's environment, so nothing it starts sees them;
a file others may read, or one owned by someone else, is ignored with a warning.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from harness9.provider.endpoints import KEY_VARIABLES
from harness9.redaction import remember_secret
from harness9.service.state import config_dir
from harness9.workspace.atomic_write import atomic_write_bytes

FILE_NAME = "credentials.json"

_log = logging.getLogger("harness9.config")


def credentials_file(env: Mapping[str, str] | None = None) -> Path:
    """Where the stored keys are."""
    return config_dir(env) / FILE_NAME


def stored_keys(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The stored keys (variable name → key); empty when there are none or the file is unsafe."""
    path = credentials_file(env)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return {}
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or (
                info.st_mode & 0o077):
            _log.warning("ignoring %s: it must be a file of yours that only you can read "
                         "(chmod 600)", path)
            return {}
        try:
            data = json.loads(handle.read(64 * 1024))
        except ValueError:
            _log.warning("ignoring %s: it is not JSON", path)
            return {}
    known = set(KEY_VARIABLES.values())
    if not isinstance(data, dict):
        return {}
    keys = {k: v for k, v in data.items() if k in known and isinstance(v, str) and v.strip()}
    for key in keys.values():
        remember_secret(key)  # not in the environment: redaction would not know it otherwise
    return keys


def store_key(variable: str, key: str | None, env: Mapping[str, str] | None = None) -> Path:
    """Store (or, with None, forget) the key of `variable`; the file stays 0600."""
    keys = stored_keys(env)
    if key is None:
        keys.pop(variable, None)
    else:
        keys[variable] = key
    path = credentials_file(env)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write_bytes(path, json.dumps(keys, indent=2).encode() + b"\n", 0o600)
    return path


def provider_environment(env: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """The environment the providers are configured from: the process's, with a stored key
    for each key variable it leaves unset."""
    env = os.environ if env is None else env
    stored = stored_keys(env)
    missing = {k: v for k, v in stored.items() if not env.get(k, "").strip()}
    return {**env, **missing} if missing else env
