"""Objects for the admission tests, decoded from YAML as the loader decodes them (a bad one raises)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kubesched.admission.errors import AdmissionError
from kubesched.api.admission_objects import LimitRange, ResourceQuota, RuntimeClass
from kubesched.api.pod import Pod
from kubesched.io import decode_admission, decode_pod


def _flow(text: str) -> Any:
    return yaml.safe_load(text)


def pod(spec: str, name: str = "web", namespace: str = "default", *, status: str = "{}") -> Pod:
    """A pod whose spec is the YAML ``spec``."""
    return decode_pod.pod({"kind": "Pod", "metadata": {"name": name, "namespace": namespace},
                           "spec": _flow(spec), "status": _flow(status)})


def limit_range(limits: str, name: str = "limits", namespace: str = "default") -> LimitRange:
    """A LimitRange whose spec.limits is the YAML ``limits``."""
    return decode_admission.limit_range({"kind": "LimitRange", "metadata": {"name": name, "namespace": namespace},
                                         "spec": {"limits": _flow(limits)}})


def quota(spec: str, name: str = "quota", namespace: str = "default") -> ResourceQuota:
    """A ResourceQuota whose spec is the YAML ``spec``."""
    return decode_admission.resource_quota({"kind": "ResourceQuota",
                                            "metadata": {"name": name, "namespace": namespace}, "spec": _flow(spec)})


def runtime_class(body: str, name: str = "gvisor") -> RuntimeClass:
    """A RuntimeClass with the YAML ``body`` (handler, overhead, scheduling)."""
    return decode_admission.runtime_class({"kind": "RuntimeClass", "metadata": {"name": name}, **_flow(body)})


def refusal(call: Any, *args: Any) -> str:
    """The API server's message of the AdmissionError ``call(*args)`` raises."""
    with pytest.raises(AdmissionError) as caught:
        call(*args)
    return caught.value.api_message()
