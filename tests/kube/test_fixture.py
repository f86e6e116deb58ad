"""The kube fixture without a control plane: a clear skip locally, a failure under CI."""

from __future__ import annotations

import os

import pytest

from tests.kube.helpers import REPO

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow

CONFTEST = "from kubesched.testing.kube import kube_control_plane, pytest_configure, pytest_runtest_makereport\n"
TEST = """
import pytest

@pytest.mark.kube
def test_needs_api_server(kube_control_plane):
    pass
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A test project using the fixture, run without KUBEBUILDER_ASSETS."""
    monkeypatch.delenv("KUBEBUILDER_ASSETS", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(TEST)
    return pytester


def test_kube_test_skips_with_reason_without_assets(project: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Without KUBEBUILDER_ASSETS (and not under CI) a kube test is skipped, saying which variable to set."""
    monkeypatch.delenv("CI", raising=False)
    result = project.runpytest_subprocess("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*KUBEBUILDER_ASSETS is not set*"])


def test_kube_test_skipped_under_ci_fails(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under CI=true the same skip is an error that gives the reason."""
    monkeypatch.setenv("CI", "true")
    result = project.runpytest_subprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*a kube test was skipped under CI=true*KUBEBUILDER_ASSETS is not set*"])
