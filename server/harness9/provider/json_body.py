"""Request bodies as JSON bytes, encoding only what is new since the previous body.

A run's requests repeat the conversation so far and add a turn, so most of a body was in the
previous one. The providers convert each message once (`MessageCache`) and never change a
converted message or block afterwards (what marks one for the prompt cache replaces it), so a
message that is the same object as in the previous body, or the same role around the same block
objects, has the same JSON: it is copied from there instead of encoded again. The SDKs would
copy (Anthropic's) and encode (both) the whole conversation before every call, a cost that grows
with the conversation (about 0.4 ms a call at 25 turns of small reads); a provider posts these
bytes as the request's content instead, and the SDK still sends, retries and parses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_ESCAPED = json.JSONEncoder(separators=(",", ":"))


def dumps(value: object) -> bytes:
    """`value` as compact UTF-8 JSON; a string that UTF-8 cannot hold (an unpaired surrogate)
    is sent escaped rather than failing the request."""
    try:
        return _COMPACT.encode(value).encode()
    except UnicodeEncodeError:
        return _ESCAPED.encode(value).encode()


def _spliced(head: bytes, key: str, items: list[bytes]) -> bytes:
    """The JSON object `head` with `key` added last, its value the array of encoded `items`."""
    comma = b"," if len(head) > 2 else b""
    return b"".join((head[:-1], comma, dumps(key), b":[", b",".join(items), b"]}"))


def _same_objects(a: list[object], b: list[object]) -> int:
    """How many leading items `a` and `b` share as the same objects (not `shared_prefix`,
    which takes an equal message for the same: equal dicts can differ in JSON, `0` and
    `False`)."""
    limit = min(len(a), len(b))
    common = 0
    while common < limit and a[common] is b[common]:
        common += 1
    return common


def _identity(message: object) -> tuple[object, ...]:
    """What makes a message the same as one of the previous body: the same object, or (as a
    provider rebuilds the message around its blocks each call) the same role around the same
    block objects."""
    if isinstance(message, dict) and message.keys() == {"role", "content"}:
        content = message["content"]
        if isinstance(content, list):
            return (message["role"], *map(id, content))
    return (id(message),)


class BodyEncoder:
    """Encodes one conversation's request bodies, reusing the previous body's JSON for the
    messages it shares with it."""

    def __init__(self) -> None:
        # The previous body's messages, their keys (`_identity`) and their JSON, in order. The
        # messages are held so that the ids in their keys stay those objects'.
        self._messages: list[object] = []
        self._keys: list[tuple[object, ...]] = []
        self._texts: list[bytes] = []
        self._head: tuple[dict[str, Any], bytes] = ({}, b"{}")

    def __call__(self, request: Mapping[str, Any]) -> bytes:
        """`request` as JSON; its `messages`, if a list, encoded message by message."""
        messages = request.get("messages")
        if not isinstance(messages, list):
            return dumps(request)
        # A conversation that only grew keeps its messages as the same objects: those are
        # taken by position, without their keys; the rest (all of them, for a provider that
        # rebuilds its messages each call) are looked up by key among the previous body's.
        common = _same_objects(messages, self._messages)
        keys, texts = self._keys[:common], self._texts[:common]
        known = dict(zip(self._keys[common:], self._texts[common:], strict=True))
        for message in messages[common:]:
            key = _identity(message)
            text = known.get(key)
            keys.append(key)
            texts.append(dumps(message) if text is None else text)
        self._messages, self._keys, self._texts = list(messages), keys, texts
        return _spliced(self._encoded_head(request), "messages", texts)

    def _encoded_head(self, request: Mapping[str, Any]) -> bytes:
        """The request without its messages (model, system prompt, tools), as JSON: the same
        as last time for most calls, which comparing finds faster than encoding."""
        head = {k: v for k, v in request.items() if k != "messages"}
        # `==` tells apart what JSON does, but for 1 and True (or 1.0): no request key of a
        # provider's takes both.
        if head != self._head[0]:
            self._head = (head, dumps(head))
        return self._head[1]
