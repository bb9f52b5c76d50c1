"""`harness9 exec --output-schema FILE`: the final answer is a JSON value valid against a JSON
Schema. The prompt asks for it, the answer is checked, and a wrong answer is asked for again
once, in the same session, with what was wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness9.client.run_config import UsageError

_FENCE = re.compile(r"^```[\w-]*\n(.*)\n```$", re.S)
MOST_PROBLEMS = 5  # the retry prompt lists at most this many


def read_schema(path: str) -> dict[str, Any]:
    """The JSON object (or boolean) in `path`; raises `UsageError` when it is not one. Whether
    it is a valid schema is `schema_problem`'s to say (it loads the validator, so it runs while
    the daemon starts)."""
    try:
        schema = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"harness9: --output-schema {path}: {exc}\n") from None
    if isinstance(schema, bool):
        return {} if schema else {"not": {}}
    if not isinstance(schema, dict):
        raise UsageError(f"harness9: --output-schema {path}: not a JSON Schema\n")
    return schema


def schema_problem(schema: dict[str, Any], path: str) -> str | None:
    """Why `schema` is not a valid JSON Schema (the usage error's text), or None."""
    from jsonschema import SchemaError, validators

    try:
        validators.validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return f"harness9: --output-schema {path}: {exc.message}\n"
    return None


def instruction(schema: dict[str, Any]) -> str:
    """What the prompt adds: the answer's form."""
    return (
        "\n\nWhen you are done, your final answer must be only a JSON value (no other text, no "
        "code fence) valid against this JSON Schema:\n"
        f"{json.dumps(schema, indent=2, ensure_ascii=False)}"
    )


def check(text: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    """The answer's JSON value, or what is wrong with it (None when it is right). A code fence
    around the value is forgiven."""
    from jsonschema import validators

    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    try:
        value = json.loads(fenced[1] if fenced else stripped)
    except ValueError as exc:
        return None, f"the answer is not JSON ({exc})"
    validator = validators.validator_for(schema)(schema)
    problems = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if not problems:
        return value, None
    listed = [f"at {_where(p.absolute_path)}: {p.message}" for p in problems[:MOST_PROBLEMS]]
    return None, "the answer does not match the schema: " + "; ".join(listed)


def _where(path: Any) -> str:
    return "/" + "/".join(str(part) for part in path)


def retry_prompt(problem: str) -> str:
    """The prompt that asks once more."""
    return (
        f"Your final answer was not accepted: {problem}. Reply again with only the JSON value "
        "(no other text) valid against the JSON Schema given before."
    )
