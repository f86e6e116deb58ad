"""The one safe YAML reader, for manifests and kube-scheduler configurations alike, reading YAML as Kubernetes
does: timestamps stay strings, nesting is bounded before any recursion runs out, over-long integers are kept
as text or refused, and a scalar its tag cannot hold is a located error. Each caller picks its limits and
wording with :class:`YamlRules`; every failure is one :class:`YamlError` line.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from sys import intern
from typing import Any

import attrs
import yaml
from yaml.events import (
    DocumentEndEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from kubesched.io import yaml_native
from kubesched.validation import HugeInteger, escape, quote, refused_integer

_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
#: The scalar tags the fast reader constructs itself, through the same constructors as the reference reader.
_SCALAR_TAGS = frozenset({"tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
                          "tag:yaml.org,2002:null", _TIMESTAMP})
#: The characters PyYAML's reader refuses; text holding one goes to the reference reader, for its message.
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
#: The ASCII characters PyYAML's reader accepts: of ASCII text, only the others need looking for.
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n\r"
#: How much ASCII text is checked at once (bounding the copy the check makes).
_CHECK_CHARS = 1 << 20
#: Most distinct scalars whose resolved tag or constructed value the fast reader remembers at once.
_MEMO_SIZE = 8192

#: libyaml's event parser when PyYAML was built with it, else PyYAML's pure-Python one (the same events, slower).
_FAST_BASE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: Whether the native parser (the ``kubesched[fast]`` extra) reads the texts it can read identically.
NATIVE = yaml_native.NATIVE is not None
#: Which parser the fast reader uses: ``libyaml`` or ``pure-Python`` (``fastyaml-rs`` first where installed).
PARSER = ("fastyaml-rs, then " if NATIVE else "") + ("libyaml" if _FAST_BASE is not yaml.SafeLoader
                                                     else "pure-Python")


@attrs.frozen
class YamlRules:
    """What one kind of YAML file allows: how deep it may nest (and the words for it), and how long an integer
    is read as a number; a longer one is a :class:`HugeInteger` (None: numbers up to Python's limit, and an
    error past it)."""

    max_depth: int
    #: The problem text when nesting is too deep, formatted with ``limit``.
    too_deep: str
    max_integer_digits: int | None = None

    @property
    def depth_problem(self) -> str:
        """The problem text for nesting past :attr:`max_depth`."""
        return self.too_deep.format(limit=self.max_depth)


class YamlError(ValueError):
    """Text that is not the YAML it should be; the message says where (``invalid YAML at line L column C: ...``)."""


def documents(text: str, rules: YamlRules) -> Iterator[Any]:
    """Each document of ``text`` in turn (None for an empty one); raise :class:`YamlError` at the first problem,
    after yielding the documents before it.

    The fast reader builds each document straight from the parser's events (libyaml's when installed); anything
    it does not handle itself (anchors, aliases, tags other than the plain ones, merge keys, an error of any
    kind) sends the text to the reference reader, which skips the documents already yielded, so the objects and
    every message are the reference reader's."""
    yielded = 0
    if not _has_non_printable(text):
        try:
            native = _native_documents(text, rules) if NATIVE else None
            for document in native if native is not None else _fast_documents(text, rules):
                yield document
                yielded += 1
            return
        except _NotFast:
            pass
    yield from _reference_documents(text, rules, skip=yielded)


def _has_non_printable(text: str) -> bool:
    """Whether ``text`` holds a character PyYAML's reader refuses: for ASCII text, any byte left once the
    printable ones are deleted (in C, twice as fast as the reader's own pattern), else that pattern."""
    if not text.isascii():
        return _NON_PRINTABLE.search(text) is not None
    return any(text[start:start + _CHECK_CHARS].encode("ascii").translate(None, _PRINTABLE_ASCII)
               for start in range(0, len(text), _CHECK_CHARS))


def _native_documents(text: str, rules: YamlRules) -> Iterator[Any] | None:
    """The documents of ``text`` from the native parser (:mod:`kubesched.io.yaml_native`), None where it does
    not apply; a chunk it leaves is read by the fast reader, which raises :class:`_NotFast` as usual."""
    return yaml_native.documents(text, rules.max_depth, lambda chunk: _fast_documents(chunk, rules),
                                 functools.partial(_plain_scalar, rules), _libyaml_accepts)


def _libyaml_accepts(text: str) -> bool:
    """Whether libyaml parses ``text`` without error: its C parser run through, no Python object made."""
    raw_parse = getattr(_FAST_BASE, "raw_parse", None)  # libyaml's parser only
    if raw_parse is None:
        return False
    try:
        raw_parse(_FAST_BASE(text))
    except yaml.YAMLError:
        return False
    return True


def _plain_scalar(rules: YamlRules, text: str) -> Any:
    """What the fast reader makes of ``text`` as a plain scalar: resolved and constructed as :func:`_build` does
    (raising :class:`_NotFast` for a merge key, a value key or anything else not a plain value)."""
    loader = _fast_loader(rules, _FAST_BASE)("")
    try:
        tag = loader.resolve(ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
        if tag == _STR:
            return text
        if tag not in _SCALAR_TAGS:
            raise _NotFast
        return loader.yaml_constructors[tag](loader, ScalarNode(tag, text))
    finally:
        loader.dispose()


def _reference_documents(text: str, rules: YamlRules, skip: int = 0) -> Iterator[Any]:
    """The documents of ``text`` after the first ``skip``, read by PyYAML's pure-Python safe loader with the
    rules' changes: slow, but the reference for every value and every message."""
    loader: yaml.SafeLoader | None = None
    try:
        loader = _loader(rules)(text)  # reading starts here: an unprintable character fails at once
        while skip and loader.check_node():
            loader.get_node()  # composed (so depth-checked), never constructed
            skip -= 1
        while loader.check_data():  # type: ignore[no-untyped-call]
            yield loader.get_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split()) or "cannot be parsed"
        raise YamlError(f"invalid YAML{where}: {_printable(problem)}") from None
    except RecursionError:
        raise YamlError(f"invalid YAML: {rules.depth_problem}") from None
    except (ValueError, LookupError, TypeError) as exc:  # a last resort: the loader locates the ones it knows of
        raise YamlError(f"invalid YAML: {_printable(str(exc))}") from None
    finally:
        if loader is not None:
            loader.dispose()


def _printable(text: str) -> str:
    """``text`` with only its non-printable characters escaped (parser messages quote their own values)."""
    return text if text.isprintable() else "".join(c if c.isprintable() else escape(c) for c in text)


class _NotFast(Exception):  # noqa: N818 - a signal, not an error
    """The fast reader met something it leaves to the reference reader (which also words every error)."""


def _fast_documents(text: str, rules: YamlRules) -> Iterator[Any]:
    """The documents of ``text``, built straight from the parser's events; raise :class:`_NotFast` on anything
    the reference reader must handle."""
    loader = _fast_loader(rules, _FAST_BASE)(text)
    try:
        yield from _build(loader, rules.max_depth)
    except _NotFast:
        raise
    except (yaml.YAMLError, RecursionError, ValueError, LookupError, TypeError, OverflowError):
        raise _NotFast from None
    finally:
        loader.dispose()


def _build(loader: Any, max_depth: int) -> Iterator[Any]:
    """Each document from ``loader``'s events: mappings and sequences built without nodes, scalars resolved and
    constructed as the reference reader does (remembered per text: the values are immutable). Anchors, aliases,
    other tags, merge and value keys, unhashable keys and nesting at ``max_depth`` raise :class:`_NotFast`."""
    get = loader.get_event
    resolve = loader.resolve
    constructors = loader.yaml_constructors
    resolvers = loader.yaml_implicit_resolvers
    # A plain scalar starting with none of these characters can only be a string (there are no wildcard resolvers).
    resolved_first = frozenset(resolvers) if None not in resolvers else None
    tags: dict[str, str] = {}
    values: dict[tuple[str, str], Any] = {}
    # Locals, not globals, in the loop that runs once per event.
    scalar_event, mapping_start, sequence_start = ScalarEvent, MappingStartEvent, SequenceStartEvent
    mapping_end, sequence_end, document_end = MappingEndEvent, SequenceEndEvent, DocumentEndEvent
    string_tag, scalar_tags, interned = _STR, _SCALAR_TAGS, intern
    get()  # the stream's start
    while get().__class__ is not StreamEndEvent:  # a document's start
        stack: list[list[Any]] = []
        top: list[Any] = []  # the open collection's items (a mapping's keys and values, alternately)
        append = top.append
        root = top
        while True:
            event = get()
            kind = event.__class__
            if kind is scalar_event:
                if event.anchor is not None:
                    raise _NotFast
                text = interned(event.value)  # one copy of each repeated key and value
                tag = event.tag
                if tag is None or tag == "!":
                    if not event.implicit[0]:
                        append(text)  # quoted, or tagged "!": a string
                        continue
                    if resolved_first is not None and text and text[0] not in resolved_first:
                        append(text)
                        continue
                    tag = tags.get(text)
                    if tag is None:
                        if len(tags) >= _MEMO_SIZE:
                            tags.clear()
                        tag = tags[text] = resolve(ScalarNode, text, event.implicit)
                if tag == string_tag:
                    append(text)
                    continue
                if tag not in scalar_tags:
                    raise _NotFast
                key = (tag, text)
                value = values.get(key, values)
                if value is values:
                    if len(values) >= _MEMO_SIZE:
                        values.clear()
                    node = ScalarNode(tag, text, event.start_mark, event.end_mark, event.style)
                    value = values[key] = constructors[tag](loader, node)
                append(value)
            elif kind is mapping_start or kind is sequence_start:
                if event.anchor is not None or event.tag not in (None, "!", _MAP if kind is mapping_start
                                                                 else _SEQ):
                    raise _NotFast
                stack.append(top)
                if len(stack) >= max_depth:
                    raise _NotFast  # it or its items are too deep: the reference reader says where
                top = []
                append = top.append
            elif kind is mapping_end:
                pairs = iter(top)
                mapping = dict(zip(pairs, pairs, strict=True))  # an unhashable key raises TypeError
                top = stack.pop()
                append = top.append
                append(mapping)
            elif kind is sequence_end:
                sequence = top
                top = stack.pop()
                append = top.append
                append(sequence)
            elif kind is document_end:
                break
            else:  # an alias
                raise _NotFast
        yield root[0]


class _Rules:
    """What both readers change in PyYAML's safe constructor, for the :class:`YamlRules` set as ``rules``."""

    rules: YamlRules

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int | HugeInteger:
        """An integer, or its text past the rules' digits (int() would refuse or crawl)."""
        text = str(self.construct_scalar(node))  # type: ignore[attr-defined]
        if self.rules.max_integer_digits is not None and len(text) > self.rules.max_integer_digits:
            return HugeInteger(text.replace("_", ""))
        return self.construct_yaml_int(node)  # type: ignore[attr-defined,no-any-return]

    def construct_text(self, node: yaml.ScalarNode) -> str:
        """A scalar as its text, whatever its tag says."""
        return str(self.construct_scalar(node))  # type: ignore[attr-defined]


def _with_rules(base: type[yaml.SafeLoader], rules: YamlRules) -> type[yaml.SafeLoader]:
    """``base`` reading timestamps as text and integers bounded, for ``rules``."""

    class Loader(_Rules, base):  # type: ignore[valid-type,misc]
        yaml_implicit_resolvers = {  # noqa: RUF012 - PyYAML's class-level table, replaced for this class only
            first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
            for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }

    Loader.rules = rules
    Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_bounded_int)
    # An explicit !!timestamp stays a string too: the time field reads it, with the API server's checks.
    Loader.add_constructor(_TIMESTAMP, Loader.construct_text)
    return Loader


@functools.cache
def _fast_loader(rules: YamlRules, base: Any) -> type[yaml.SafeLoader]:
    """The fast reader's parser (``base``'s: libyaml's where installed), resolvers and constructors, for
    ``rules``."""
    return _with_rules(base, rules)


#: The most nodes the aliases of one file may stand for, written out (real manifests and configurations use few
#: aliases, if any; nine levels of nine aliases stand for 387 million).
MAX_ALIAS_NODES = 1_000_000


def _size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """How many nodes ``node`` stands for, its aliased parts counted in full (remembered per node)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    if isinstance(node, yaml.MappingNode):
        total = 1 + sum(_size(key, sizes) + _size(value, sizes) for key, value in node.value)
    elif isinstance(node, yaml.SequenceNode):
        total = 1 + sum(_size(item, sizes) for item in node.value)
    else:
        total = 1
    sizes[id(node)] = total
    return total


@functools.cache
def _loader(rules: YamlRules) -> type[yaml.SafeLoader]:
    """The reference reader: PyYAML's pure-Python safe loader, changed as :mod:`this module
    <kubesched.io.yaml_reader>` says, for ``rules``."""

    class Loader(_with_rules(yaml.SafeLoader, rules)):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.depth = 0
            self.expanded = 0
            self.sizes: dict[int, int] = {}

        def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
            if self.check_event(yaml.events.AliasEvent):
                event = self.peek_event()
                anchored = self.anchors.get(event.anchor)
                if anchored is not None:
                    # What every alias stands for is counted as if written out: a "billion laughs" text is
                    # refused while composed, before anything walks its (shared) expansion.
                    self.expanded += _size(anchored, self.sizes)
                    if self.expanded > MAX_ALIAS_NODES:
                        raise yaml.composer.ComposerError(
                            None, None, f"aliases expand to more than {MAX_ALIAS_NODES} nodes", event.start_mark)
            self.depth += 1
            try:
                if self.depth > rules.max_depth:
                    mark = self.peek_event().start_mark
                    raise yaml.composer.ComposerError(None, None, rules.depth_problem, mark)
                return super().compose_node(parent, index)  # type: ignore[no-any-return]
            finally:
                self.depth -= 1

        def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
            """A node's value; a scalar its tag cannot hold (``!!int abc``, ``!!bool maybe``) is a located error."""
            try:
                return super().construct_object(node, deep)
            except (ValueError, LookupError, TypeError, OverflowError) as exc:
                shown = quote(node.value) if isinstance(node.value, str) else "this value"
                problem = (refused_integer(exc)
                           or f"{shown} is not a valid {escape(node.tag.replace('tag:yaml.org,2002:', '!!'))}")
                raise yaml.constructor.ConstructorError(None, None, problem, node.start_mark) from None

    return Loader
