"""The daemon on another machine, reached through ssh: `harness9 run --remote HOST:PATH` and
`harness9 doctor --remote HOST`.

ssh runs a command through the remote user's shell, not a login shell: the PATH there often
lacks `~/.local/bin`, where `pipx install` and `uv tool install` put harness9. So the remote
command does not rely on PATH alone: a small POSIX sh script tries PATH, then the usual install
places, and says on stderr what it looked for when none holds harness9.
`HARNESS9_REMOTE_COMMAND` (the remote command that starts harness9, e.g.
`/opt/h9/bin/harness9`) replaces that search, and `HARNESS9_SSH` the ssh command (e.g.
`ssh -F ~/.ssh/work_config`). Nothing listens on a port: the daemon speaks on the ssh
session's stdin and stdout, and ends with it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping

# Where harness9 is looked for, after PATH: pipx and `uv tool` (~/.local/bin), pip --user,
# a system-wide install.
_LOCATE = r"""
for h in "$(command -v harness9 2>/dev/null)" "$HOME/.local/bin/harness9" \
         "$HOME/.local/share/pipx/venvs/harness9/bin/harness9" /usr/local/bin/harness9 \
         /opt/harness9/bin/harness9; do
  if [ -n "$h" ] && [ -x "$h" ]; then
    if [ "$1" = --where ]; then echo "$h"; exit 0; fi
    exec "$h" "$@"
  fi
done
echo "harness9: not found on $(hostname): not on PATH ($PATH), nor in ~/.local/bin," \
     "/usr/local/bin or /opt/harness9/bin (pipx install a clone or a wheel; or set" \
     "HARNESS9_REMOTE_COMMAND to its path)" >&2
exit 127
"""
ENV_SSH = "HARNESS9_SSH"
ENV_COMMAND = "HARNESS9_REMOTE_COMMAND"


class RemoteError(ValueError):
    """A `--remote` value that cannot be used; the message says why."""


def parse_target(text: str) -> tuple[str, str]:
    """`HOST:PATH` → (host, path); PATH must be absolute (it is the daemon's workspace root)."""
    host, sep, path = text.partition(":")
    if not sep or not host or not path.startswith("/"):
        raise RemoteError(f"harness9: --remote wants HOST:/absolute/path, got {text!r}.\n")
    return host, path.rstrip("/") or "/"


def ssh_command(env: Mapping[str, str]) -> list[str]:
    """The ssh command (`HARNESS9_SSH`, else `ssh`), without a terminal for the session."""
    return [*shlex.split(env.get(ENV_SSH) or "ssh"), "-T"]


def remote_harness9(env: Mapping[str, str], *args: str) -> str:
    """The remote shell command that runs `harness9 ARGS` there."""
    given = env.get(ENV_COMMAND)
    if given:
        return f"{given} {shlex.join(args)}"
    return shlex.join(["sh", "-c", _LOCATE, "harness9", *args])


def daemon_command(host: str, env: Mapping[str, str]) -> list[str]:
    """The command that starts `harness9 serve` on `host` and speaks through ssh."""
    return [*ssh_command(env), host, remote_harness9(env, "serve")]


def doctor_remote(host: str, env: Mapping[str, str] | None = None,
                  timeout: float = 60) -> tuple[list[str], bool]:
    """What `harness9 doctor --remote HOST` prints, and whether the remote side can serve."""
    env = dict(os.environ if env is None else env)
    reach = _ssh(host, env, "echo \"$(id -un)@$(hostname)\"", timeout)
    if reach.returncode != 0:
        return [f"ssh {host}: cannot connect: {_last_line(reach.stderr)}",
                f"  try `{shlex.join([*ssh_command(env), host, 'true'])}` by hand"], False
    lines = [f"ssh {host}: connected as {reach.stdout.strip()} (no port is opened: the daemon "
             "speaks on the ssh session)"]
    version = _ssh(host, env, remote_harness9(env, "--version"), timeout)
    if version.returncode != 0:
        lines.append(f"harness9 on {host}: MISSING: {_last_line(version.stderr)}")
        return lines, False
    lines.append(f"harness9 on {host}: {version.stdout.strip()} (found without a login "
                 "shell's PATH)")
    lines.append(f"  an editor's server command: {_server_command(host, env, timeout)}")
    report = _ssh(host, env, remote_harness9(env, "doctor"), timeout)
    lines.append(f"`harness9 doctor` on {host}:")
    lines += ["  " + line for line in report.stdout.splitlines()]
    if report.stderr.strip():
        lines.append(f"  ({_last_line(report.stderr)})")
    return lines, True


def _server_command(host: str, env: Mapping[str, str], timeout: float) -> str:
    """What an editor should run to start the daemon on `host` (the program's own path there,
    so the remote PATH does not matter)."""
    where = env.get(ENV_COMMAND) or _ssh(host, env, remote_harness9(env, "--where"),
                                          timeout).stdout.strip()
    return f"ssh {host} {where} serve"


def _ssh(host: str, env: Mapping[str, str], command: str,
         timeout: float) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([*ssh_command(env), host, command], capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              env=dict(env))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess([], 255, "", str(exc))


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"
