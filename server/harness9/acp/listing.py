"""`session/list` pages: the stored sessions newest first, `PAGE_SIZE` at a time.

The cursor is opaque to the client: the sort key (time of the last change, session id) of the
last session of the page, so a page goes on after that session even when sessions were added
or changed meanwhile (a changed session moves to the front and is not shown twice on later
pages).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence

from acp.schema import ListSessionsResponse, SessionInfo

from harness9.acp.acp_errors import invalid_params
from harness9.service.sessions.session import iso_time
from harness9.service.sessions.session_log import SessionMeta

PAGE_SIZE = 50

_Key = tuple[float, str]  # (-updated_at, session_id): ascending is newest first


def page_of(
    metas: Sequence[SessionMeta], cursor: str | None, size: int = PAGE_SIZE
) -> tuple[list[SessionMeta], str | None]:
    """The page after `cursor` (None: the first) and the cursor of the next page (None: this
    is the last); -32602 naming `cursor` for one this agent did not give."""
    ordered = sorted(metas, key=_key)
    after = None if cursor is None else _decode(cursor)
    rest = ordered if after is None else [meta for meta in ordered if _key(meta) > after]
    page = rest[:size]
    return page, (_encode(_key(page[-1])) if len(rest) > size else None)


def session_list(metas: Sequence[SessionMeta], cursor: str | None) -> ListSessionsResponse:
    """The `session/list` answer: the page of `metas` after `cursor`."""
    page, next_cursor = page_of(metas, cursor)
    sessions = [
        SessionInfo(session_id=meta.session_id, cwd=meta.workspace_root,
                    title=meta.title or None, updated_at=iso_time(meta.updated_at))
        for meta in page
    ]
    return ListSessionsResponse(sessions=sessions, next_cursor=next_cursor)


def _key(meta: SessionMeta) -> _Key:
    return (-meta.updated_at, meta.session_id)


def _encode(key: _Key) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode()


def _decode(cursor: str) -> _Key:
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, binascii.Error, UnicodeError):
        value = None
    if (
        not isinstance(value, list) or len(value) != 2
        or not isinstance(value[0], int | float) or not isinstance(value[1], str)
    ):
        raise invalid_params("cursor", "not a cursor of a session/list answer")
    return (float(value[0]), value[1])
