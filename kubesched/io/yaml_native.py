"""The native YAML fast path: fastyaml-rs (a Rust YAML 1.2 parser, the ``kubesched[fast]`` extra) builds the
documents, where it provably gives what the libyaml reader gives: the text is plain block/flow YAML (no anchors,
aliases, tags, directives, block scalars, escapes, tabs or line breaks other than newlines), libyaml accepts
it, and every plain scalar that YAML 1.1 (Kubernetes' reading) and the parser might read differently reads the
same in both. Anything else returns None, and the caller reads the text as before.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from importlib import import_module
from types import ModuleType
from typing import Any

#: The native parser's module, or None where the extra is not installed.
NATIVE: ModuleType | None
try:
    NATIVE = import_module("fast_yaml")
except ImportError:  # pragma: no cover - depends on the installation
    NATIVE = None

#: Characters whose YAML meaning the native path leaves to the libyaml reader: tabs, carriage returns and the
#: line breaks only YAML 1.1 has (NEL, LS, PS: line folding), backslashes (escapes), block scalars, anchors,
#: aliases, tags, directives and a byte order mark.
_UNHANDLED = "\t\r\x85\u2028\u2029\\|>&*!%\ufeff"
#: Where a plain scalar may start or end inside a whitespace-free run of text: flow indicators.
_FLOW = re.compile(r"[\[\]{},]")
#: Every plain scalar that YAML 1.1 or YAML 1.2 (with any parser's leniency around numbers) might read as
#: something other than its text: numbers of every base and form, infinities, NaN, booleans, nulls, ``=`` and
#: ``<<``. A scalar outside it reads as its text in both (tests/io/test_native_yaml.py checks this).
_SPECIAL = re.compile(
    r"[-+]?(?:[0-9][0-9_]*(?::[0-9_]+)*(?:\.[0-9_]*)?|\.[0-9_]*)(?:[eE][-+]?[0-9_]+)?"
    r"|[-+]?0[xXoObB][0-9a-fA-F_]+|[-+]?\.?(?i:inf|infinity|nan)"
    r"|(?i:y|yes|n|no|on|off|true|false|null|~)|=|<<|")
#: A comment (``#`` at a line's start or after a space) whose text holds no quote, so it cannot end a quoted
#: scalar: it is a comment or inside a quoted scalar, and either way holds no plain scalar ("on" in prose).
_COMMENT = re.compile(r"(?:^|(?<= ))#[^\n\"']*$", re.MULTILINE)
#: Most texts handed to the native parser at once: documents are built a chunk at a time, so memory holds one
#: chunk's raw objects, not the whole input's (and small chunks leave fewer allocator pages pinned by the decoded
#: objects made between them: 256 KiB kept a third less memory than 1 MiB, at the same speed).
CHUNK_CHARS = 1 << 18
#: The marker line that starts a document, after the newline it follows.
_MARKER = "\n---"


def documents(text: str, max_depth: int, libyaml_reader: Callable[[str], Iterator[Any]],
              scalar: Callable[[str], Any], libyaml_accepts: Callable[[str], bool]) -> Iterator[Any] | None:
    """The documents of ``text`` read natively, or None when the native path does not apply to this text.

    ``libyaml_reader(chunk)`` reads a chunk the native parser leaves (an empty document, which the two count
    differently); ``scalar(text)`` is what YAML 1.1 makes of a plain scalar (raising when it is not a plain
    value); ``libyaml_accepts(text)`` is libyaml's verdict on the text (an error is its reader's to word)."""
    if NATIVE is None or not 3 <= max_depth <= 512 or any(c in text for c in _UNHANDLED):
        return None
    if not _scalars_agree(text, scalar) and not ("#" in text and _scalars_agree(_COMMENT.sub("", text), scalar)):
        return None
    if not libyaml_accepts(text):
        return None
    return _read(text, max_depth - 2, libyaml_reader)


def _read(text: str, depth: int, libyaml_reader: Callable[[str], Iterator[Any]]) -> Iterator[Any]:
    """Each chunk's documents; a chunk the parser refuses or reads an empty document in goes to the libyaml
    reader. ``depth`` keeps the parser two levels short of the limit, so the reference reader judges any
    nesting near it."""
    assert NATIVE is not None
    load_all = NATIVE.safe_load_all
    for chunk in _chunks(text):
        try:
            found = list(load_all(chunk, max_depth=depth, max_documents=10_000_000))
        except Exception:  # any refusal: the libyaml reader reads the chunk, or words the error
            found = None
        except BaseException as exc:  # a panic in the parser's Rust code (PanicException)
            if type(exc).__name__ != "PanicException":
                raise
            found = None
        if found is None or any(document is None for document in found):
            yield from libyaml_reader(chunk)
        else:
            yield from found


def _chunks(text: str) -> Iterator[str]:
    """``text`` cut at document markers (``---`` at the start of a line, then a space or the line's end) into
    runs of whole documents of about :data:`CHUNK_CHARS`. libyaml accepted the text, so such a line is a
    document's start wherever it stands."""
    if len(text) <= CHUNK_CHARS:
        yield text
        return
    pieces = text.split(_MARKER)
    current = [pieces[0]]
    size = len(pieces[0])
    for piece in pieces[1:]:
        if size >= CHUNK_CHARS and (not piece or piece[0] in " \n"):
            yield "\n---".join(current) + "\n"
            current = ["---" + piece]
            size = len(piece)
        else:
            current.append(piece)
            size += len(piece) + len(_MARKER)
    yield "\n---".join(current)


#: What both readers made of each plain scalar checked, by its text: True where they agree.
_agreed: dict[str, bool] = {}
_AGREED_SIZE = 1 << 16


def _scalars_agree(text: str, scalar: Callable[[str], Any]) -> bool:
    """Whether every run of text that could be a plain scalar YAML 1.1 and the native parser might read
    differently reads the same in both. Every plain scalar with such a reading is a whitespace-free run
    bounded by whitespace, flow indicators or colons, so each such run (and each part of it between colons) is
    checked, once per distinct text; quoted text checked along the way can only refuse, never admit."""
    seen = set()
    for word in _words(text):
        parts = _FLOW.split(word) if ("[" in word or "{" in word or "," in word or "]" in word or "}" in word) \
            else (word,)
        for part in parts:
            if ":" not in part:
                seen.add(part)
                continue
            pieces = part.split(":")
            for i in range(len(pieces)):
                for j in range(i + 1, len(pieces) + 1):
                    seen.add(":".join(pieces[i:j]))
    for candidate in seen:
        if not _SPECIAL.fullmatch(candidate):
            continue
        agreed = _agreed.get(candidate)
        if agreed is None:
            if len(_agreed) >= _AGREED_SIZE:
                _agreed.clear()
            agreed = _agreed[candidate] = _agree(candidate, scalar)
        if not agreed:
            return False
    return True


def _words(text: str) -> set[str]:
    """The distinct whitespace-separated runs of ``text``, split a line-aligned slice at a time (splitting the
    whole text at once would hold every run of it at once: several times the text's size), each distinct line
    once (manifests repeat most of their lines)."""
    words: set[str] = set()
    start = 0
    while start < len(text):
        end = text.find("\n", start + CHUNK_CHARS)
        end = len(text) if end < 0 else end
        for line in set(text[start:end].split("\n")):
            words.update(line.split())
        start = end
    return words


def _agree(candidate: str, scalar: Callable[[str], Any]) -> bool:
    """Whether YAML 1.1 (``scalar``) and the native parser read the plain scalar ``candidate`` alike: the same
    type and value (NaN as NaN, and -0.0 apart from 0.0)."""
    assert NATIVE is not None
    try:
        ours = scalar(candidate)
        read = list(NATIVE.safe_load_all(f"- {candidate}\n"))
    except Exception:  # either refusing means the text is not for the native path
        return False
    if len(read) != 1 or not isinstance(read[0], list) or len(read[0]) != 1:
        return False
    theirs = read[0][0]
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, float):
        return (math.isnan(ours) and math.isnan(theirs)) or (ours == theirs and repr(ours) == repr(theirs))
    return bool(ours == theirs)
