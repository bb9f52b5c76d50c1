"""Language servers the daemon starts itself, for clients that do not lend it their editor's:
the `languageServers` setting and its defaults, the servers' processes (read-only, dying with
the daemon), and the problem source and language queries the tools use, served from them."""
