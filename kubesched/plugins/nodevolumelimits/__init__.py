"""NodeVolumeLimits: CSI attach limits per node (:mod:`.csi`), in-tree volumes counted as the CSI volumes they
migrated to (:mod:`.translation`)."""

from kubesched.plugins.nodevolumelimits.csi import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, NodeVolumeLimits

__all__ = ["ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED", "NodeVolumeLimits"]
