"""The GPU table (swacheck/sglang/gpus.py): the parts of issue 27, and the closest names of an unknown one."""

from __future__ import annotations

import pytest

from swacheck.sglang.gpus import closest, lookup


@pytest.mark.parametrize(
    ("name", "canonical", "sm", "gib"),
    [
        ("H100 NVL", "H100 NVL", 90, 94),  # not the 80 GB SXM/PCIe part
        ("NVIDIA-H100-NVL", "H100 NVL", 90, 94),
        ("H800 NVL", "H800 NVL", 90, 94),
        ("H20-3e", "H20-3e", 90, 141),
        ("H20 141GB", "H20-3e", 90, 141),
        ("RTX PRO 5000", "RTX PRO 5000", 120, 48),
        ("RTX PRO 5000 Blackwell", "RTX PRO 5000", 120, 48),
        ("GB10", "GB10", 121, 128),
        ("DGX Spark", "GB10", 121, 128),
        ("L40", "L40", 89, 45),
        ("RTX 4090 48GB", "RTX 4090 48GB", 89, 48),  # not the 24 GB card
        ("RTX 4090", "RTX 4090", 89, 24),
        ("H100", "H100", 90, 80),
    ],
)
def test_the_parts_users_named(name, canonical, sm, gib):
    gpu = lookup(name)
    assert gpu is not None and gpu.name == canonical and gpu.sm == sm
    assert round(gpu.memory_gib()) == gib
    assert gpu.memory_source and gpu.source


def test_an_unknown_gpu_gets_the_closest_known_names():
    assert closest("H100 NVX") == ["H100 NVL", "H100", "H800 NVL"]
    assert closest("RTX PRO 4000")[:2] == ["RTX PRO 6000", "RTX PRO 5000"]
    assert lookup("H100 NVX") is None


def test_the_unknown_gpu_note_names_them(lint):
    run = lint(
        {"server.yaml": "model-path: models/v4\ntp-size: 8\nmoe-a2a-backend: deepep\n"},
        "--gpu",
        "H100 NVX",
    )
    notes = [f["message"] for d in run.deployments for f in d["findings"] if "GPU" in f["message"]]
    assert notes and all("closest known: H100 NVL, H100, H800 NVL" in m for m in notes), notes
