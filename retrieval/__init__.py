"""Read side: vector index, embedders, BM25, retrieval paths, fusion, scoring, context assembly."""
