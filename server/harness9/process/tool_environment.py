"""What a tool process sees of the daemon's environment: never the provider credentials, and by
default no variable whose name suggests a secret. Every process a tool starts takes its
environment from `ToolEnvironment.apply` (bash today; MCP servers too).

For each variable name, the first rule that applies decides:
0. a variable that names a host socket or display (`HOST_SOCKET_VARIABLES`: the session bus,
   the ssh agent, X11, Wayland, the runtime folder) is never kept: commands reach no host socket;
1. a name matching an `include` glob is kept; but a protected name (a provider credential) only
   when an `include` entry is that exact name, so `"*"` never lets an API key through;
2. a protected name is removed;
3. a name matching an `exclude` glob is removed;
4. a name containing `KEY`, `SECRET`, `TOKEN` or `PASSWORD`, in any letter case, is removed
   (`github_token` is as secret as `GITHUB_TOKEN`);
5. every other variable is kept (PATH, HOME, LANG, …).

Globs are shell patterns (`*`, `?`, `[…]`) over the whole name, case-sensitive as names are.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from harness9.redaction import looks_secret

HOST_SOCKET_VARIABLES = frozenset({
    "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "DISPLAY", "WAYLAND_DISPLAY",
    "XDG_RUNTIME_DIR", "GPG_AGENT_INFO", "XAUTHORITY",
})


@functools.lru_cache(maxsize=32)
def _pattern(globs: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regular expression for all of `globs` (None for none): filtering runs per tool call."""
    if not globs:
        return None
    return re.compile("|".join(fnmatch.translate(glob) for glob in globs))


def _matches(name: str, globs: tuple[str, ...]) -> bool:
    pattern = _pattern(globs)
    return pattern is not None and pattern.match(name) is not None


@dataclass(frozen=True, slots=True)
class ToolEnvironment:
    """The filter between the daemon's environment and a tool process's (see the module doc)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    protected: frozenset[str] = frozenset()

    def protecting(self, names: Iterable[str]) -> ToolEnvironment:
        """The same filter, also protecting `names` (e.g. the providers' API key variables)."""
        return replace(self, protected=self.protected | frozenset(names))

    def keeps(self, name: str) -> bool:
        """Whether a tool process gets the variable `name`."""
        if name in HOST_SOCKET_VARIABLES:
            return False
        if name in self.protected:
            return name in self.include
        if _matches(name, self.include):
            return True
        return not (_matches(name, self.exclude) or looks_secret(name))

    def apply(self, env: Mapping[str, str]) -> dict[str, str]:
        """The variables of `env` a tool process gets."""
        return {name: value for name, value in env.items() if self.keeps(name)}


DEFAULT_TOOL_ENVIRONMENT = ToolEnvironment()
