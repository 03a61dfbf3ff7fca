"""Text embedding: the ``Embedder`` interface and its two providers.

    embedder.py     the interface every provider implements (documents and queries)
    local.py        the packaged all-MiniLM-L6-v2 in-process (ONNX Runtime or torch)
    onnx_model.py   that model's ONNX export, tokenizer and pooling
    voyage.py       Voyage AI over HTTPS, with bounded retries
    batcher.py      texts asked for while the model is busy go in one forward pass
    query_cache.py  a search text is embedded once however many steps ask for it

``vectors/factory.py`` picks the provider from the settings (``build_embedder``).
"""
