"""The write path: memories into the graph, then the vector index made to agree with it."""
