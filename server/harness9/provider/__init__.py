"""LLM adapters behind one interface; SDKs are imported lazily by each adapter."""

from harness9.provider.llm_provider import LLMProvider
from harness9.provider.provider_errors import ProviderError

__all__ = ["LLMProvider", "ProviderError"]
