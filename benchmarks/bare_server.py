"""The cold-start floor: a bare pygls server that only answers the LSP lifecycle.

Started exactly like the daemon (`python -m benchmarks.bare_server`), it measures what Python,
pygls and lsprotocol cost before any of our code runs.
"""

from __future__ import annotations

from pygls.lsp.server import LanguageServer


def main() -> None:
    """Serve the LSP lifecycle over stdio until `exit`."""
    LanguageServer("bare", "0").start_io()


if __name__ == "__main__":
    main()
