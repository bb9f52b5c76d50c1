"""Checks of single params fields, each raising `ParamsError` with the field's name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ParamsError(ValueError):
    """Params do not fit the method; the message names the field and the reason."""


def params_object(raw: Any, method: str) -> Mapping[str, Any]:
    """A request's params as an object (none: an empty one)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ParamsError(f"{method} params must be an object, got {type(raw).__name__}")
    return raw


def optional_str(raw: Mapping[str, Any], name: str) -> str | None:
    """A non-empty string field, or None when absent."""
    value = raw.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ParamsError(f"{name} must be a non-empty string, got {value!r}")
    return value


def optional_bool(raw: Mapping[str, Any], name: str, default: bool) -> bool:
    """A boolean field, or `default` when absent."""
    value = raw.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ParamsError(f"{name} must be a boolean, got {value!r}")
    return value


def required_str(raw: Mapping[str, Any], name: str) -> str:
    """A non-empty string field that must be there."""
    value = optional_str(raw, name)
    if value is None:
        raise ParamsError(f"{name} is required")
    return value
