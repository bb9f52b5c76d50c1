"""JSON Schema (draft 2020-12) from the protocol's typed records.

A record is a `TypedDict`; its keys are the wire's names, `NotRequired` marks an optional field,
`Literal` an enumeration, and its docstring becomes the description. Every record met is put in
`$defs` once, under its class name, and referred to by `$ref`, so a shape shared by several
messages (usage, a changed file) is one definition. Records are closed (`additionalProperties:
false`): a field the daemon sends must be in its record, so a renamed or misspelt field fails
validation; the few objects that carry what others define (a tool's input schema, the model's
arguments) are `Any` or marked with `open_record`.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, NotRequired, Required, TypeVar, Union, get_args, get_origin

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_OPEN: set[type] = set()
_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
}

T = TypeVar("T", bound=type)


def open_record(cls: T) -> T:
    """Mark a record whose objects may carry fields besides those it names."""
    _OPEN.add(cls)
    return cls


def is_record(annotation: Any) -> bool:
    """Whether `annotation` is a TypedDict class."""
    return isinstance(annotation, type) and typing.is_typeddict(annotation)


class SchemaBuilder:
    """Collects the `$defs` of the records it is asked about."""

    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}

    def ref(self, record: type) -> dict[str, Any]:
        """A `$ref` to `record`'s definition, defining it (and what it uses) first."""
        name = record.__name__
        if name not in self.defs:
            self.defs[name] = {}  # reserved first: a record may refer to itself
            self.defs[name] = self.record(record)
        return {"$ref": f"#/$defs/{name}"}

    def record(self, record: type) -> dict[str, Any]:
        """The object schema of a TypedDict."""
        hints = typing.get_type_hints(record, include_extras=True)
        properties = {key: self.of(_unwrap(value)) for key, value in hints.items()}
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        # Read from the hints, not `__required_keys__`: with postponed annotations Python 3.11
        # does not see `NotRequired` when it makes the class.
        required = [key for key, value in hints.items() if get_origin(value) is not NotRequired]
        if required:
            schema["required"] = required
        if record not in _OPEN:
            schema["additionalProperties"] = False
        if record.__doc__:
            schema["description"] = " ".join(record.__doc__.split())
        return schema

    def of(self, annotation: Any) -> dict[str, Any]:
        """The schema of one annotation."""
        if annotation is Any:
            return {}
        if annotation in _SCALARS:
            return dict(_SCALARS[annotation])
        if is_record(annotation):
            return self.ref(annotation)
        origin, args = get_origin(annotation), get_args(annotation)
        if origin is Literal:
            return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
        if origin in (Union, types.UnionType):
            return self._union(args)
        if origin is list:
            return {"type": "array", "items": self.of(args[0])}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.of(args[1])}
        if origin is typing.Annotated:
            return {**self.of(args[0]), "description": str(args[1])}
        raise TypeError(f"no JSON Schema for {annotation!r}")

    def _union(self, args: tuple[Any, ...]) -> dict[str, Any]:
        literals = [get_args(a) for a in args if get_origin(a) is Literal]
        if len(literals) == len(args):  # Literal["a"] | Literal["b"]: one enumeration
            return {"enum": [value for values in literals for value in values]}
        return {"anyOf": [self.of(a) for a in args]}


def _unwrap(annotation: Any) -> Any:
    """The annotation inside `NotRequired[...]` / `Required[...]`."""
    while get_origin(annotation) in (NotRequired, Required):
        annotation = get_args(annotation)[0]
    return annotation
