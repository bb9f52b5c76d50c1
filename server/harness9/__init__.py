"""harness9: a coding-agent daemon for any editor."""

__version__ = "0.1.0"
