"""Write side: the durable memory write path, reconciliation, turns, extraction, documents."""
