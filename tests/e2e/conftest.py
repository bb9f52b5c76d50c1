"""End-to-end fixtures: the loopback fake LLM."""

from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm"]
