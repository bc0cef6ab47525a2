"""The uncased BERT WordPiece tokenizer that MiniLM was trained with, in plain Python.

Written here rather than taken from ``tokenizers`` because that library brings ``huggingface_hub``
and its transfer client (about 30 MB) for what is, for goal strings of a dozen words, a few
microseconds of work. It follows the same steps as BERT's reference tokenizer, so the ids match it
(``tests/llm/test_embed_minilm.py`` checks them against ids the reference produced):

1. clean: drop NUL, U+FFFD and control characters, turn every whitespace character into a space;
2. put spaces around CJK ideographs (each is its own word);
3. lower-case, then strip accents (NFD, drop combining marks);
4. split on whitespace, then split every punctuation character off as its own word;
5. WordPiece: each word is matched greedily, longest vocabulary entry first, later pieces with the
   ``##`` prefix; a word with no match (or longer than 100 characters) becomes ``[UNK]``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

CLS, SEP, PAD, UNK = "[CLS]", "[SEP]", "[PAD]", "[UNK]"
_MAX_WORD_CHARS = 100


def _is_control(ch: str) -> bool:
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    # BERT counts every non-alphanumeric ASCII symbol as punctuation, whatever Unicode says ($, ^, `).
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def basic_words(text: str) -> list[str]:
    """Steps 1-4: the text as lower-cased, accent-free words and punctuation marks."""
    chars: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            chars.append(" ")
        elif _is_cjk(cp):
            chars.extend((" ", ch, " "))
        else:
            chars.append(ch)
    lowered = unicodedata.normalize("NFD", "".join(chars).lower())
    stripped = "".join(ch for ch in lowered if unicodedata.category(ch) != "Mn")
    words: list[str] = []
    for token in stripped.split():
        current: list[str] = []
        for ch in token:
            if _is_punctuation(ch):
                if current:
                    words.append("".join(current))
                    current = []
                words.append(ch)
            else:
                current.append(ch)
        if current:
            words.append("".join(current))
    return words


class WordPiece:
    """Text to token ids with a WordPiece vocabulary.

    Args:
        vocab: Token to id (must hold ``[CLS]``, ``[SEP]``, ``[PAD]`` and ``[UNK]``).
    """

    def __init__(self, vocab: Mapping[str, int]) -> None:
        missing = [t for t in (CLS, SEP, PAD, UNK) if t not in vocab]
        if missing:
            raise ValueError(f"the vocabulary lacks {', '.join(missing)}")
        self.vocab = dict(vocab)
        self.cls_id, self.sep_id, self.pad_id, self.unk_id = (self.vocab[t] for t in (CLS, SEP, PAD, UNK))
        # Goals repeat the same words ("Open", "contact", ...): memoising the per-word split is free speed.
        self._pieces = lru_cache(maxsize=65536)(self._word_ids)

    @classmethod
    def from_file(cls, path: Path) -> WordPiece:
        """The tokenizer of a ``vocab.txt`` (one token a line, the line number its id)."""
        tokens = path.read_text(encoding="utf-8").split("\n")
        if tokens and tokens[-1] == "":
            tokens.pop()
        return cls({token: i for i, token in enumerate(tokens)})

    def _word_ids(self, word: str) -> tuple[int, ...]:
        if len(word) > _MAX_WORD_CHARS:
            return (self.unk_id,)
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found: int | None = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unk_id,)
            ids.append(found)
            start = end
        return tuple(ids)

    def encode(self, text: str, *, max_length: int) -> list[int]:
        """``[CLS] pieces... [SEP]``, the pieces cut so the whole is at most ``max_length`` ids."""
        ids = [self.cls_id]
        for word in basic_words(text):
            ids.extend(self._pieces(word))
            if len(ids) >= max_length - 1:
                break
        return [*ids[: max_length - 1], self.sep_id]

    def batch(self, texts: Sequence[str], *, max_length: int) -> tuple[list[list[int]], list[list[int]]]:
        """Ids and attention masks of ``texts``, right-padded to the longest one."""
        encoded = [self.encode(t, max_length=max_length) for t in texts]
        width = max((len(e) for e in encoded), default=0)
        ids = [e + [self.pad_id] * (width - len(e)) for e in encoded]
        masks = [[1] * len(e) + [0] * (width - len(e)) for e in encoded]
        return ids, masks
