"""A fake LLM service on loopback for tests and benchmarks.

`FakeLLM` is a real HTTP server on `127.0.0.1:<free port>` (a thread per connection) that speaks
both wire formats the providers use, as JSON and as SSE streams:

- `POST …/chat/completions` (OpenAI; point `OPENAI_BASE_URL` at `fake.openai_base_url`)
- `POST …/messages` (Anthropic; point `ANTHROPIC_BASE_URL` at `fake.anthropic_base_url`)

Each request consumes the next scripted step:

- `Reply(text, tool_calls=[Call(name, arguments, id)], usage=(in, out))`: an answer. Streams
  split text into `chunk_chars` pieces and tool arguments into `arg_chunk_chars` fragments,
  interleaving parallel calls (OpenAI format); `arguments` may be a raw, broken JSON string.
  `first_byte_delay`, `chunk_delay`, `drop_after` (close the connection after N stream events),
  `error_after` (send an in-stream error event of `error_type` after N events) and `stall_after`
  (go silent after N events, sending only a keep-alive every `keepalive` seconds) shape the
  timing and failures of the stream.
- `Fail(status, message, body=None, headers={}, retry_after_ms=1)`: an HTTP error in the wire
  format's error shape. `retry-after-ms` keeps the SDKs' retries fast.
- `Drop(delay)`: close the connection without answering.
- `Hang()`: read the request and never answer; the connection stays open until the server closes.

Every request is recorded (`fake.requests`: wire, path, lower-cased headers, parsed JSON body),
so tests assert what was sent. A request that finds no step fails with a non-retried 400 and is
listed in `fake.unexpected`, unless a `responder` callable `(Request) -> Step` answers it, which
serves endless traffic (benchmarks); `latency` adds a fixed delay before every answer.

    with FakeLLM() as fake:
        fake.script([Reply(tool_calls=[Call("bash", {"command": "ls"})]), Reply("done")])
        env = fake.env()          # OPENAI_/ANTHROPIC_ API keys and base URLs for a subprocess
        ...
        assert not fake.requests[1].has_tools

    with FakeLLM(responder=lambda request: Reply("ok"), latency=0.005) as fake: ...

The `fake_llm` pytest fixture (`tests.fakellm.fixtures`) yields a started server and closes it;
import it into a conftest.py to use it.
"""

from tests.fakellm.server import EXHAUSTED, FakeLLM, Responder
from tests.fakellm.steps import Call, Drop, Fail, Hang, Reply, Request, Step

__all__ = [
    "EXHAUSTED",
    "Call",
    "Drop",
    "Fail",
    "FakeLLM",
    "Hang",
    "Reply",
    "Request",
    "Responder",
    "Step",
]
