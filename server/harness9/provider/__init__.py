"""LLM adapters behind one interface; SDKs are imported lazily by each adapter."""

from harness9.provider.base import LLMProvider
from harness9.provider.errors import ProviderError

__all__ = ["LLMProvider", "ProviderError"]
