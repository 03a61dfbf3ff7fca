"""The durable job queue and the background jobs of the write side (LLM extraction, large
documents)."""
