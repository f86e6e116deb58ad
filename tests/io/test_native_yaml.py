"""The native YAML fast path (fastyaml-rs, the ``kubesched[fast]`` extra) reads every text it takes exactly as
the libyaml and reference readers do, and leaves every other text to them."""

from __future__ import annotations

import functools
import math
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.io import yaml_native, yaml_reader
from kubesched.io.documents import YAML_RULES
from kubesched.io.load import InputErrorList, load
from kubesched.io.yaml_reader import YamlError, documents

pytestmark = pytest.mark.skipif(yaml_native.NATIVE is None or not hasattr(yaml, "CSafeLoader"),
                                reason="the kubesched[fast] extra (fastyaml-rs) and libyaml are not installed")

REPOSITORY = Path(__file__).resolve().parents[2]
CLUSTER_MANIFESTS = ["examples/quickstart.yaml", "examples/preemption/cluster.yaml", "examples/plugins/cluster.yaml",
                     "tests/data/real-cluster-dump.yaml"]
ALL_YAML = sorted(str(p.relative_to(REPOSITORY)) for d in ("examples", "tests")
                  for p in (REPOSITORY / d).rglob("*.yaml"))
MANIFEST = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  labels: {app: web, tier: \"1\"}\n"
            "spec:\n  containers:\n  - name: c\n    ports:\n    - containerPort: 8080\n"
            "    resources: {requests: {cpu: 100m, memory: 1Gi}}\n  priority: 0\n")


def _comparable(value: Any) -> Any:
    """``value`` with its types spelled out (1, 1.0 and True are equal in Python, not in YAML) and NaN named."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dict):
        return [(_comparable(k), type(k).__name__, _comparable(v), type(v).__name__) for k, v in value.items()]
    if isinstance(value, list):
        return [(_comparable(v), type(v).__name__) for v in value]
    return (type(value).__name__, repr(value))


def _read(text: str, native: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], str | None]:
    """The documents ``text`` reads as, and the error ending them, with the native path on or off."""
    monkeypatch.setattr(yaml_reader, "NATIVE", native)
    found: list[Any] = []
    try:
        found.extend(_comparable(d) for d in documents(text, YAML_RULES))
    except YamlError as error:
        return found, str(error)
    return found, None


def _refuse(*args: object, **kwargs: object) -> Iterator[Any]:
    raise AssertionError("the native path left this text to the libyaml reader")


def test_a_plain_manifest_is_read_by_the_native_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Block and flow collections with plain, quoted and numeric scalars are the native parser's work."""
    monkeypatch.setattr(yaml_reader, "_fast_documents", _refuse)
    assert list(documents("---\n" + MANIFEST + "---\n" + MANIFEST, YAML_RULES))[1]["spec"]["priority"] == 0


@pytest.mark.parametrize("text", [
    "a: yes\n", "a: [on, off]\n", "0777: x\n", "a: 1_000\n", "a: 1:20\n", "a: 1e3\n", "a: 0o17\n", "a: .5\n",
    "a: =\n", "b: &x 1\nc: *x\n", "a: !!str 1\n", "a: |\n  x\n", "a: \"\\u00e9\"\n", "a:\tb\n", "a: b\r\n",
    "%YAML 1.1\n---\na: 1\n", "a: " + "9" * 1001 + "\n", "a: [\n", "# only a comment\n", "a: 1\n---\n",
    "a: 'x\u2029\n  y'\n", "a: b\u2028c: d\n", "a: x\x85y\n",
], ids=["yes", "on-off", "octal-key", "underscores", "sexagesimal", "exponent-without-dot", "0o", "leading-dot",
        "value-key", "alias", "tag", "block-scalar", "escape", "tab", "crlf", "directive", "huge-integer",
        "syntax-error", "comment-only", "empty-last-document", "paragraph-separator", "line-separator", "nel"])
def test_what_yaml_1_1_reads_otherwise_is_left_to_the_libyaml_reader(text: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Scalars YAML 1.1 (Kubernetes' reading) and YAML 1.2 read differently, and every construct the native
    path does not check, read as the reference reader reads them."""
    assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)


def test_a_word_of_prose_in_a_comment_does_not_refuse_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """"on" or "no" in a comment is no scalar: the text is still the native parser's."""
    monkeypatch.setattr(yaml_reader, "_fast_documents", _refuse)
    text = "# runs on every node, no exceptions\n" + MANIFEST + "  # on: off\n"
    (document,) = documents(text, YAML_RULES)
    assert document["metadata"]["name"] == "web-1"


def test_a_comment_holding_a_quote_is_checked_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text after `` #`` that holds a quote may end a quoted scalar and hold plain ones: it is checked."""
    text = 'a: ["x #", on]\n'
    assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)
    assert list(documents(text, YAML_RULES)) == [{"a": ["x #", True]}]


@pytest.mark.parametrize("chunk", [1, 20, 64])
def test_documents_read_in_chunks_are_the_stream_s_documents(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut into chunks at document markers (and only there), the stream reads as one piece does."""
    monkeypatch.setattr(yaml_native, "CHUNK_CHARS", chunk)
    text = ("a: 1\n---\nb: ---x\n----: 2\n--- c\n---\n- d\n--- \ne: [f,\n  g]\n---\n" + MANIFEST
            + "---\n---\nh: 1\n")
    assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)


@pytest.mark.parametrize("path", ALL_YAML)
def test_the_repository_s_yaml_reads_the_same_natively(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every YAML file of the repository's examples and tests reads to the same documents either way."""
    text = (REPOSITORY / path).read_text(encoding="utf-8")
    assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)


def _load(paths: list[str], native: bool, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setattr(yaml_reader, "NATIVE", native)
    try:
        return load(paths)
    except InputErrorList as errors:
        return [str(e) for e in errors.errors]


@pytest.mark.parametrize("path", CLUSTER_MANIFESTS)
def test_the_example_clusters_load_to_the_same_objects_natively(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The decoded, admitted objects of every example cluster are equal either way."""
    paths = [str(REPOSITORY / path)]
    assert _load(paths, True, monkeypatch) == _load(paths, False, monkeypatch)


_PLAIN = st.text(alphabet="0123456789+-._:eExXoObBaAfFiInNlLsStTuUrRyY~=<", max_size=8)


@settings(max_examples=400, deadline=None)
@given(_PLAIN)
def test_a_plain_scalar_outside_the_checked_forms_reads_as_its_text_in_both(candidate: str) -> None:
    """The guard's premise: a plain scalar YAML 1.1 or the native parser reads as anything but its own text
    is one of the forms the guard checks."""
    assert yaml_native.NATIVE is not None
    if yaml_native._SPECIAL.fullmatch(candidate):
        return
    text = f"- {candidate}\n"
    try:
        scalars = [e for e in yaml.parse(text, Loader=yaml.CSafeLoader) if isinstance(e, yaml.ScalarEvent)]
    except yaml.YAMLError:
        return  # not YAML: no text holds it as a plain scalar
    if [(e.value, e.style) for e in scalars] != [(candidate, None)]:
        return  # not one plain scalar in libyaml's reading (a key, a comment...)
    (ours,) = documents(text, YAML_RULES)
    (theirs,) = yaml_native.NATIVE.safe_load_all(text)
    assert ours == theirs == [candidate]


_KEYS = st.one_of(st.sampled_from(["name", "on", "yes", "1", "0777", "a b", "x:y", "-k", "true", "~"]),
                  st.text(alphabet=string.ascii_letters + string.digits + "-._/: #'\"", min_size=1, max_size=8))
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True),
    st.sampled_from(["yes", "No", "on", "OFF", "y", "1_000", "0o17", "0x1F", "017", "1:20", "1e3", ".5", "=", "<<",
                     "2024-01-31", "null", "~", "", " ", "a: b", "- x", "#x", "x #y", "[a]", "{}", "'q'", '"q"',
                     "---", "...", "é", "100m", "10.0.0.1"]),
    st.text(alphabet=string.ascii_letters + string.digits + " -._/:#,[]{}'\"é\u00a0\u2029", max_size=12))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner,
                                                                                           max_size=4),
                       max_leaves=20)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_VALUES, min_size=1, max_size=3), st.sampled_from([None, False, True]),
       st.sampled_from([None, "'", '"']), st.sampled_from([20, 80, 1000]), st.booleans(), st.integers(1, 64))
def test_generated_documents_read_the_same_natively(values: list[Any], flow: bool | None, style: str | None,
                                                      width: int, explicit_end: bool, chunk: int) -> None:
    """Random documents in every layout PyYAML writes read to the same documents and errors either way."""
    text = yaml.safe_dump_all(values, default_flow_style=flow, default_style=style, width=width,
                              explicit_start=True, explicit_end=explicit_end, allow_unicode=True)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(yaml_native, "CHUNK_CHARS", chunk)
        assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["Pod", "Node"]), st.text(alphabet="abc-1", min_size=1, max_size=6),
                          st.sampled_from(["100m", "1", "0.5", "yes", "1e3", "'2'", "-1", "on", "1_0"]),
                          st.sampled_from(["web", "'1'", "true", "yes", "01", "~"])), min_size=1, max_size=6))
def test_generated_manifests_load_the_same_natively(tmp_path_factory: pytest.TempPathFactory,
                                                     objects: list[tuple[str, str, str, str]]) -> None:
    """Random manifests (good and bad) load to equal objects, or to the same error lines, either way."""
    lines = []
    for kind, name, cpu, label in objects:
        lines.append(f"---\napiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n  labels:\n    app: {label}\n")
        if kind == "Pod":
            lines.append(f"spec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: {cpu}\n")
        else:
            lines.append(f"status:\n  allocatable:\n    cpu: {cpu}\n")
    path = tmp_path_factory.mktemp("native") / "cluster.yaml"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _load([str(path)], True, monkeypatch) == _load([str(path)], False, monkeypatch)


def test_the_scalar_check_is_remembered_per_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each distinct scalar is compared once per process, however many documents repeat it."""
    calls: list[str] = []
    scalar = functools.partial(yaml_reader._plain_scalar, YAML_RULES)
    monkeypatch.setattr(yaml_native, "_agreed", {})

    def counting(text: str) -> Any:
        calls.append(text)
        return scalar(text)

    text = "a: 8080\n" * 3 + "---\nb: 8080\n"
    assert yaml_native._scalars_agree(text, counting)
    assert yaml_native._scalars_agree(text, counting)
    assert sorted(calls) == ["", "8080"]


def test_the_reader_names_the_native_parser_first() -> None:
    """The reader reports the native parser first, where installed (the benchmark prints it)."""
    assert yaml_reader.PARSER.startswith("fastyaml-rs, then ")


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab \n\t", max_size=60), st.integers(1, 8))
def test_the_words_of_a_text_are_found_a_slice_at_a_time(text: str, chunk: int) -> None:
    """Slicing the text at line ends finds exactly the runs splitting it whole finds."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(yaml_native, "CHUNK_CHARS", chunk)
        assert yaml_native._words(text) == set(text.split())
