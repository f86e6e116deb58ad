"""Profiles read from a pipe (``--profile <(...)``): a pipe can be read only once, whatever the profile's form."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry

KUBE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: from-a-pipe
"""
TOML = '[[profiles]]\nscheduler-name = "from-a-pipe"\n'

pytestmark = pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="needs /dev/fd, as process substitution does")


@pytest.mark.parametrize("text", [pytest.param(KUBE, id="kube-scheduler-config"), pytest.param(TOML, id="toml")])
def test_a_profile_in_a_pipe_is_read_once(registry: PluginRegistry, text: str) -> None:
    """A profile given as ``/dev/fd/N`` of a pipe, as bash's ``<(cat FILE)`` gives it, loads in either form."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, text.encode())
        os.close(write_end)
        config = load_config(f"/dev/fd/{read_end}", registry)
    finally:
        os.close(read_end)
    assert [p.scheduler_name for p in config.profiles] == ["from-a-pipe"]
