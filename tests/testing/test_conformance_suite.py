"""The base test class's example cluster: from a cluster file (``cluster``) or from Python objects."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from kubesched.errors import KubeschedError
from kubesched.testing import PluginConformance, make_node
from kubesched.testing.conformance.examples import default_nodes
from tests.testing import broken_plugins as broken

HERE = Path(__file__).parent


class UsesAClusterFile(PluginConformance):
    """A subclass naming a cluster file by a path relative to this module."""

    __test__ = False
    plugin_class = broken.SilentRejection
    cluster = "gpu-cluster.yaml"


def test_a_relative_cluster_path_is_relative_to_the_class_file() -> None:
    """``cluster`` relative paths resolve against the directory of the module that sets it, not the cwd."""
    assert UsesAClusterFile().cluster_paths() == [HERE / "gpu-cluster.yaml"]


def test_a_missing_cluster_file_is_an_error_naming_it() -> None:
    """A cluster file that does not exist is a user error naming the file, not a traceback."""
    with pytest.raises(KubeschedError, match=r"gpu-cluster\.yaml"):
        UsesAClusterFile().plugin_under_test()


def test_the_cluster_file_is_the_example_cluster(tmp_path: Path) -> None:
    """The file's nodes, bound pods and pending pods become the examples, and the subject remembers the file."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: only}\n---\napiVersion: v1\nkind: Pod\n"
                       "metadata: {name: p}\nspec: {containers: [{name: c}]}\n", encoding="utf-8")

    class FromFile(PluginConformance):
        __test__ = False
        plugin_class = broken.SilentRejection

    FromFile.cluster = str(cluster)
    subject = FromFile().plugin_under_test()
    assert [n.name for n in subject.nodes] == ["only"]
    assert [p.name for p in subject.pods] == ["p"]
    assert subject.cluster == (str(cluster),)


def test_a_cluster_and_python_examples_together_are_an_error() -> None:
    """Both a cluster file and Python nodes: the class says to choose one."""

    class Both(UsesAClusterFile):
        nodes: ClassVar = (make_node("n").obj(),)

    with pytest.raises(KubeschedError, match="set either cluster or nodes, running, pods and storage, not both"):
        Both().plugin_under_test()


def test_without_a_cluster_the_default_examples_are_used() -> None:
    """No cluster and no Python examples: the suite's own example cluster."""

    class Defaults(PluginConformance):
        __test__ = False
        plugin_class = broken.SilentRejection

    assert list(Defaults().plugin_under_test().nodes) == list(default_nodes())
