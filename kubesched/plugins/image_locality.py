"""ImageLocality: prefer nodes that already hold the pod's container images, weighted by how widely each
image has spread so that pods do not pile onto the few nodes that pulled an image first.

Score only, already in [0, 100]: the sizes of the images found on the node, each scaled by the share of
nodes holding it, clamped to [23 MiB, 1000 MiB x containers] and mapped linearly onto 0..100.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.framework import (
    MAX_NODE_SCORE,
    CycleState,
    Handle,
    ImageStateSummary,
    NodeBatch,
    NodeInfo,
    Plugin,
    hookimpl,
)

NAME = "ImageLocality"
MB = 1024 * 1024
#: Image bytes below which a node scores 0 (most registry images are at least this big).
MIN_THRESHOLD = 23 * MB
#: Image bytes per container at or above which a node scores 100.
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """The name as the node reports it: ``:latest`` appended when the name has neither a tag nor a digest.

    A colon before the last slash belongs to a registry port (``host:5000/img``), not to a tag.
    """
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """The image's size scaled by the fraction of nodes holding it (truncated, as kube's float64 maths)."""
    return int(state.size * (state.num_nodes / total_num_nodes))


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """Map the summed image scores linearly onto 0..100 between the thresholds."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality(Plugin):
    """Scores nodes by the spread-weighted size of the pod's images (init and regular containers) they hold."""

    name = NAME

    def __init__(self, handle: Handle, args: object = None) -> None:
        super().__init__(handle, args)
        # The last pod scored and its normalised image names: Score runs once per node for the same pod.
        self._pod: Pod | None = None
        self._images: tuple[str, ...] = ()
        self._image_counts: Counter[str] = Counter()
        # The normalised names and their counts by the containers' image strings (read-only once built).
        self._by_raw: dict[tuple[str, ...], tuple[tuple[str, ...], Counter[str]]] = {}

    def _image_names(self, pod: Pod) -> tuple[str, ...]:
        if pod is not self._pod:
            spec = pod.spec
            raw = tuple(c.image for c in (*spec.init_containers, *spec.containers))
            known = self._by_raw.get(raw)  # pods of one workload name the same images: normalised once
            if known is None:
                images = tuple(normalized_image_name(image) for image in raw)
                if len(self._by_raw) >= 1024:
                    self._by_raw.clear()
                known = self._by_raw[raw] = (images, Counter(images))
            self._images, self._image_counts = known
            self._pod = pod
        return self._images

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """0..100 from the images of every init and regular container found on the node."""
        image_states = node_info.image_states
        if not image_states:
            return 0  # the sum stays under the minimum threshold
        images = self._image_names(pod)
        total_num_nodes = self.handle.snapshot.num_nodes()
        total = 0
        for image in images:
            image_state = image_states.get(image)
            if image_state is not None:
                total += scaled_image_score(image_state, total_num_nodes)
        return calculate_priority(total, len(images))

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[np.int64]:
        """Score of every node at once: per image of the pod, the nodes holding it from an index of the columns."""
        images = self._image_names(pod)
        size = len(node_batch)
        if not images:
            return np.zeros(size, dtype=np.int64)
        columns = node_batch.columns
        if not columns.categories((NAME,), _holds_images)[1]:  # no node holds any image: skip the per-image indexes
            return np.zeros(size, dtype=np.int64)
        total_num_nodes = self.handle.snapshot.num_nodes()
        total: npt.NDArray[np.int64] | None = None
        for image, times in self._image_counts.items():
            codes, states = columns.categories((NAME, image), _image_state_of(image))
            if not states:  # no node holds the image
                continue
            # One score per distinct summary (they are shared by every node holding the image), 0 for code -1.
            scores = [scaled_image_score(image_state, total_num_nodes) * times for image_state in states]
            part = np.array([*scores, 0], dtype=np.int64)[node_batch.column(codes)]
            total = part if total is None else total + part
        if total is None:  # a sum of 0 is under the minimum threshold everywhere
            return np.zeros(size, dtype=np.int64)
        max_threshold = MAX_CONTAINER_THRESHOLD * len(images)
        clamped = np.clip(total, MIN_THRESHOLD, max_threshold)
        return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


def _image_state_of(image: str) -> Callable[[NodeInfo], ImageStateSummary | None]:
    """The node's summary of ``image`` (None when the node does not hold it), for a categories index."""

    def value_of(node_info: NodeInfo) -> ImageStateSummary | None:
        return node_info.image_states.get(image)

    return value_of


def _holds_images(node_info: NodeInfo) -> bool | None:
    """True for a node that holds some image (None otherwise), for a categories index."""
    return True if node_info.image_states else None
