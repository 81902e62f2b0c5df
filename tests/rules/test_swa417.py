"""SWA417 mooncake-efa-allocator: a CUDA VMM allocator with MOONCAKE_PROTOCOL=efa."""

from __future__ import annotations

import pytest
from conftest import only
from rules.test_swa416 import envs, server


@pytest.mark.parametrize(
    ("pairs", "said"),
    [
        (
            ("MOONCAKE_PROTOCOL=EFA", "SGLANG_MOONCAKE_CUSTOM_MEM_POOL=true"),
            "mooncake/utils.py:48, from conn.py:272): ValueError: SGLANG_MOONCAKE_CUSTOM_MEM_POOL=NVLINK "
            "is incompatible with MOONCAKE_PROTOCOL=efa.",
        ),
        (
            ("MOONCAKE_PROTOCOL=efa", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
            "mooncake/utils.py:57, from conn.py:272): ValueError: PYTORCH_CUDA_ALLOC_CONF enables "
            "expandable_segments",
        ),
    ],
)
def test_efa_with_a_cuda_vmm_allocator(lint, pairs, said):
    f = only(lint(server("decode"), *envs(*pairs)), "SWA417")
    assert said in f["message"]


@pytest.mark.parametrize(
    "pairs",
    [
        ("SGLANG_MOONCAKE_CUSTOM_MEM_POOL=NVLINK",),  # rdma
        ("MOONCAKE_PROTOCOL=efa", "SGLANG_MOONCAKE_CUSTOM_MEM_POOL=INTRA_NODE_NVLINK"),
        ("MOONCAKE_PROTOCOL=efa", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False"),
    ],
)
def test_efa_and_allocators_it_takes(lint, pairs):
    assert lint(server("decode"), *envs(*pairs)).findings("SWA417") == []
