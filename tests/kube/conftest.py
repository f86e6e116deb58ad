"""The real control plane: kubesched's own fixture, its ``kube`` marker and its CI rule (a skip fails)."""

from __future__ import annotations

from kubesched.testing.kube import kube_control_plane, pytest_configure, pytest_runtest_makereport

__all__ = ["kube_control_plane", "pytest_configure", "pytest_runtest_makereport"]
