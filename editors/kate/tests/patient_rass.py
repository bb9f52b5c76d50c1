"""rassumfrassum's routing (LspLogic) with more patience for a server's `initialize` answer.

rass waits 3 s for every server's answer to a request, then answers the client with what it has;
a later `initialize` answer is dropped, and that server is left out of the connection. On a
loaded CI machine the daemon can take longer than that to start, so the test waits up to 30 s.
"""

from __future__ import annotations

from rassumfrassum.frassum import LspLogic


class PatientLogic(LspLogic):
    """LspLogic, waiting up to 30 s for the servers' `initialize` answers."""

    def get_aggregation_timeout_ms(self, method: str | None) -> int:
        """30 s for `initialize`, rass's own timeouts for the rest."""
        if method == "initialize":
            return 30_000
        return super().get_aggregation_timeout_ms(method)
