"""The front-end-neutral service: what the LSP daemon and other front-ends share."""
