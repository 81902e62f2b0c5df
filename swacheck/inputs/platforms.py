"""The platform (cuda, rocm, npu) a launch's files say: an image name, ROCm/NPU variables."""

from __future__ import annotations

import re

from ..model.records import Val
from .shell import Env

_PLATFORM_NAMES = {"rocm": "ROCm", "npu": "Ascend NPU"}
ROCM_ENV = (
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "SGLANG_USE_AITER",
    "HSA_NO_SCRATCH_RECLAIM",
)
NPU_ENV = ("ASCEND_RT_VISIBLE_DEVICES",)


def platform_of_image(image: str) -> str | None:
    """The platform an image name says: ``rocm/...``, ``lmsysorg/sglang:v0.5.23-rocm700-mi35x``."""
    low = image.lower()
    if "rocm" in low:
        return "rocm"
    if "ascend" in low or re.search(r"(^|[-_:/.])(npu|cann)", low):
        return "npu"
    if "cuda" in low or "nvidia" in low:
        return "cuda"
    return None


def infer_platform(given: Val, env: Env, hint: Val | None) -> Val:
    """What the files say (a GPU resource, a base image; then ROCm/NPU variables), else ``--platform``."""
    if hint is not None:
        return hint
    for names, platform in ((ROCM_ENV, "rocm"), (NPU_ENV, "npu")):
        for name in names:
            var = env.get(name)
            if var is not None and var.origin != "--env":
                return Val(
                    platform, f"{name} is set, a {_PLATFORM_NAMES[platform]} variable", var.location
                )
    return given
