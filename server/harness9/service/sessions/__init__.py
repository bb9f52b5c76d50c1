"""Sessions: a conversation in memory, its stored log and metadata, and the store of them all."""
