"""An in-memory stand-in for :class:`~kubesched.kube.rest.KubeApi`: objects by path, resourceVersions, failures."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Mapping
from typing import Any

from kubesched.kube.rest import ApiError, Obj


class FakeApi:
    """Serves GET/POST/PUT/PATCH/DELETE on objects kept by path; ``fail`` lets a test refuse chosen requests."""

    def __init__(self) -> None:
        self.objects: dict[str, Obj] = {}
        self.requests: list[tuple[str, str]] = []
        #: (method, path, content type, body) of every request that had a body.
        self.bodies: list[tuple[str, str, str, Any]] = []
        self.fail: Callable[[str, str], ApiError | None] = lambda method, path: None
        self._versions = itertools.count(1)

    def put_object(self, path: str, obj: Obj) -> Obj:
        """Store ``obj`` at ``path`` with the next resourceVersion."""
        stored = copy.deepcopy(obj)
        stored.setdefault("metadata", {})["resourceVersion"] = str(next(self._versions))
        self.objects[path] = stored
        return copy.deepcopy(stored)

    def request(self, method: str, path: str, *, params: Mapping[str, object] | None = None, body: Any = None,
                content_type: str = "application/json", timeout: float = 30.0) -> Obj:
        """Record the request, then answer it like the API server would (roughly)."""
        self.requests.append((method, path))
        if body is not None:
            self.bodies.append((method, path, content_type, copy.deepcopy(body)))
        error = self.fail(method, path)
        if error is not None:
            raise error
        if method == "GET":
            if path not in self.objects:
                raise ApiError(404, "NotFound", f"{path} not found")
            return copy.deepcopy(self.objects[path])
        if method == "POST":
            if path.endswith("/binding") or "/events" in path:
                return {"kind": "Status", "status": "Success"}
            created = f"{path}/{body['metadata']['name']}"
            if created in self.objects:
                raise ApiError(409, "AlreadyExists", f"{created} already exists")
            return self.put_object(created, body)
        if method == "PUT":
            current = self.objects.get(path)
            if current is None:
                raise ApiError(404, "NotFound", f"{path} not found")
            if body["metadata"].get("resourceVersion") != current["metadata"]["resourceVersion"]:
                raise ApiError(409, "Conflict", "the object has been modified")
            return self.put_object(path, body)
        if method == "DELETE":
            self.objects.pop(path, None)
        return {}

    def get(self, path: str, **params: object) -> Obj:
        """GET ``path``."""
        return self.request("GET", path, params=params or None)
