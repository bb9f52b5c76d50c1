"""`harness9 acp`: the Agent Client Protocol front-end (Zed, JetBrains IDEs, …) on the service."""
