"""A real OpenSSH server on loopback for the remote tests: throwaway host and user keys, its own
config and port, run as the current user; nothing of the machine's own ssh set-up is used.

`ssh_host()` (a fixture) yields an `SshHost`: `ssh_command` runs `ssh` against it (with its own
client config, known hosts and key), so `[*host.ssh_command, "harness9-test", "cmd"]` runs a
command "on the remote side", which is this machine reached through sshd.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

HOST = "harness9-test"
ROOT = Path(__file__).resolve().parents[2]


def find_sshd() -> str | None:
    """The sshd binary (Debian puts it in /usr/sbin, outside most users' PATH)."""
    found = shutil.which("sshd") or "/usr/sbin/sshd"
    return found if os.access(found, os.X_OK) else None


@dataclass(frozen=True)
class SshHost:
    """A running sshd and how to reach it."""

    folder: Path
    port: int
    config: Path  # the ssh client's config, naming HOST

    @property
    def ssh_command(self) -> list[str]:
        return ["ssh", "-F", str(self.config)]

    def remote_command(self, env: dict[str, str], *args: str) -> str:
        """The shell command that runs this checkout's `harness9 ARGS` on the remote side, in
        the test's environment with `env` over it (sshd passes the client's environment on to
        nothing, so it goes on the command line). Through the tests' fork server when there is
        one: the remote side is this machine."""
        from tests.support import preloaded

        kept = {k: v for k, v in os.environ.items() if k.startswith(("PYTHON", "LC_", "XDG_"))
                or k in ("LANG", "LANGUAGE", "PATH", "HOME", "TMPDIR", "HARNESS9_STATE_DIR",
                         "HARNESS9_SANDBOX", "HARNESS9_WARM_UP", "HARNESS9_RESIDENT")}
        kept.setdefault("PYTHONPATH", str(ROOT / "server"))
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in {**kept, **env}.items())
        return f"cd {shlex.quote(str(ROOT))} && env -i {assignments} " \
            + shlex.join(preloaded.command(*args))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _keygen(path: Path) -> str:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
                   check=True, timeout=20)
    return path.with_suffix(".pub").read_text()


def _write_configs(folder: Path, port: int) -> Path:
    host_pub = _keygen(folder / "host_key")
    (folder / "authorized_keys").write_text(_keygen(folder / "user_key"))
    (folder / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\n"
        f"PidFile {folder / 'sshd.pid'}\nAuthorizedKeysFile {folder / 'authorized_keys'}\n"
        "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\nLogLevel ERROR\n"
        "ClientAliveInterval 0\n"
    )
    (folder / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_pub}")
    config = folder / "ssh_config"
    config.write_text(
        f"Host {HOST}\n  HostName 127.0.0.1\n  Port {port}\n  User {_user()}\n"
        f"  IdentityFile {folder / 'user_key'}\n  IdentitiesOnly yes\n"
        f"  UserKnownHostsFile {folder / 'known_hosts'}\n  StrictHostKeyChecking yes\n"
        "  BatchMode yes\n  LogLevel ERROR\n  ControlMaster no\n"
    )
    return config


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_name


def _server_command(sshd: str, folder: Path) -> list[str]:
    """sshd in the foreground. As root it needs its privilege-separation folder (/run/sshd),
    which only its system service creates: then it runs in a mount namespace of its own with a
    private /run, so the machine is left as it was."""
    command = [sshd, "-D", "-e", "-f", str(folder / "sshd_config")]
    if os.getuid() != 0 or os.path.isdir("/run/sshd"):
        return command
    setup = "mount -t tmpfs tmpfs /run && mkdir -m 755 /run/sshd && exec \"$@\""
    return ["unshare", "-m", "sh", "-c", setup, "sh", *command]


def _wait_until_up(host: SshHost, server: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"sshd exited: {(host.folder / 'sshd.log').read_text()}")
        done = subprocess.run([*host.ssh_command, HOST, "true"], capture_output=True, timeout=10)
        if done.returncode == 0:
            return
        time.sleep(0.1)
    raise RuntimeError(f"sshd did not answer: {(host.folder / 'sshd.log').read_text()}")


def start(folder: Path, sshd: str) -> tuple[SshHost, subprocess.Popen[bytes]]:
    """Start sshd with keys and configs in `folder` (empty); returns once it answers."""
    port = _free_port()
    host = SshHost(folder, port, _write_configs(folder, port))
    with open(folder / "sshd.log", "wb") as log:
        server = subprocess.Popen(_server_command(sshd, folder), stdin=subprocess.DEVNULL,
                                  stdout=log, stderr=log, start_new_session=True)
    try:
        _wait_until_up(host, server, time.monotonic() + 15)
    except BaseException:
        stop(server)
        raise
    return host, server


def stop(server: subprocess.Popen[bytes]) -> None:
    """Stop sshd (sessions still open end with their connections)."""
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(10)


@pytest.fixture
def ssh_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshHost]:
    """A running sshd on loopback (skipped, saying why, where the machine has no OpenSSH)."""
    sshd = find_sshd()
    if sshd is None or shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        pytest.skip("OpenSSH (sshd, ssh, ssh-keygen) is not installed: apt-get install "
                    "openssh-server openssh-client")
    host, server = start(tmp_path_factory.mktemp("sshd"), sshd)
    try:
        yield host
    finally:
        stop(server)


if __name__ == "__main__":
    # `python tests/support/sshd.py FOLDER` (the editor tests): start sshd, leave it running,
    # print its pid; the ssh client's config is FOLDER/ssh_config, the host HOST.
    found = find_sshd()
    if found is None:
        raise SystemExit("sshd is not installed (apt-get install openssh-server)")
    _, started = start(Path(sys.argv[1]), found)
    print(started.pid)
