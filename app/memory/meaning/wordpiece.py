"""BERT's uncased WordPiece tokenizer in plain Python: text -> token ids of a vocabulary.

The same splitting as BERT's BasicTokenizer + WordpieceTokenizer (Devlin et al. 2019) and the
`tokenizers` BertNormalizer/BertPreTokenizer: drop control characters, put spaces around CJK
ideographs, lower-case, strip accents (NFD, drop combining marks), split on whitespace and on
every punctuation character (ASCII symbols count as punctuation), then split each word by
greedy longest match from the left, pieces after the first prefixed with "##"; a word of more
than 100 characters, or one that cannot be split entirely, is the unknown token.

Imports nothing of nodwyn, so tools/build_model.py tokenises its training text with this very
code. Unknown tokens are left out of `ids` (they carry no meaning to average) unless asked for.
"""

import re
import unicodedata

MAX_WORD = 100
UNKNOWN = "[UNK]"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# In ASCII, letters and digits make words and every other printable character is punctuation.
_ASCII_WORDS = re.compile(r"[a-z0-9]+|[!-/:-@\[-`{-~]")


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2B73F
        or 0x2B740 <= code <= 0x2B81F
        or 0x2B820 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


def _clean(text: str) -> str:
    """Control characters dropped, whitespace made spaces, CJK ideographs spaced apart."""
    out = []
    for char in text:
        code = ord(char)
        if code == 0 or code == 0xFFFD:
            continue
        if char in "\t\n\r" or unicodedata.category(char) == "Zs":
            out.append(" ")
        elif unicodedata.category(char).startswith("C"):
            continue  # control, format, private-use (Codex's citation marks), unassigned
        elif _is_cjk(code):
            out.append(f" {char} ")
        else:
            out.append(char)
    return "".join(out)


def _strip_accents(word: str) -> str:
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def basic_words(text: str) -> list[str]:
    """The words BERT's basic tokenizer makes: cleaned, lower-cased, unaccented, punctuation
    split off as words of their own."""
    if text.isascii() and not _CONTROL.search(text):
        return _ASCII_WORDS.findall(text.lower())  # the same rules, as one regular expression
    words: list[str] = []
    for chunk in text.split():
        if chunk.isascii() and not _CONTROL.search(chunk):
            words.extend(_ASCII_WORDS.findall(chunk.lower()))
            continue
        for part in _clean(chunk).lower().split():
            _split_punctuation(_strip_accents(part), words)
    return words


def _split_punctuation(chunk: str, words: list[str]) -> None:
    if chunk.isalnum():
        words.append(chunk)
        return
    start = 0
    for at, char in enumerate(chunk):
        if _is_punctuation(char):
            if at > start:
                words.append(chunk[start:at])
            words.append(char)
            start = at + 1
    if start < len(chunk):
        words.append(chunk[start:])


class WordPiece:
    """A vocabulary (token list, row = id) and the splitting of words into its pieces."""

    def __init__(self, tokens: list[str]):
        self.tokens = tokens
        self.ids_of = {token: row for row, token in enumerate(tokens)}
        self.unknown = self.ids_of.get(UNKNOWN, -1)
        # no piece is longer than this, so longer matches need not be tried (a bound: a
        # "##" token counts its prefix too, which only tries a match that cannot be there)
        self.longest = max(map(len, tokens), default=1)
        self._cache: dict[str, tuple[int, ...]] = {}

    def pieces(self, word: str) -> list[str]:
        """The word as vocabulary pieces, or [UNKNOWN]."""
        if len(word) > MAX_WORD:
            return [UNKNOWN]
        out, start = [], 0
        while start < len(word):
            end = min(len(word), start + self.longest)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids_of:
                    break
                end -= 1
            else:
                return [UNKNOWN]
            out.append(piece)
            start = end
        return out

    def word_ids(self, word: str) -> tuple[int, ...]:
        found = self._cache.get(word)
        if found is None:
            found = tuple(self.ids_of[p] for p in self.pieces(word) if p != UNKNOWN)
            if len(self._cache) > 200_000:
                self._cache.clear()
            self._cache[word] = found
        return found

    def tokenize(self, text: str) -> list[str]:
        return [piece for word in basic_words(text) for piece in self.pieces(word)]

    def ids(self, text: str, limit: int | None = None, unknown: bool = False) -> list[int]:
        """Ids of the text's pieces, at most `limit` of them; a word that cannot be split is
        left out, or with `unknown` is the unknown token's id (as a transformer reads it)."""
        out: list[int] = []
        for word in basic_words(text):
            found = self.word_ids(word)
            if unknown and not found:
                found = (self.unknown,)
            out.extend(found)
            if limit is not None and len(out) >= limit:
                return out[:limit]
        return out
