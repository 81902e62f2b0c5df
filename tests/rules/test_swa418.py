"""SWA418 nixl-ib-device-port: --disaggregation-ib-device with port suffixes under NIXL UCX."""

from __future__ import annotations

import pytest
from conftest import edits, only
from rules.test_swa416 import server

NIXL = "disaggregation-transfer-backend: nixl\n"


def test_nixl_ib_device_with_ports(lint):
    run = lint(server(extra=NIXL + "disaggregation-ib-device: mlx5_0:1,mlx5_1:1\n"))
    assert run.exit_code == 1
    f = only(run, "SWA418")
    assert f["message"] == (
        "SGLang 0.5.23 stops building this prefill server's NIXL KV manager "
        "(_resolve_ucx_device_list, sglang/srt/disaggregation/nixl/conn.py:196): ValueError: NIXL "
        "UCX --disaggregation-ib-device requires HCA names without port suffixes (e.g. mlx5_0); "
        "NIXL appends port 1."
    )
    assert f["fix"]["safe"] is True
    assert edits(f) == [("server.yaml", 7, 27, 7, 44, "mlx5_0,mlx5_1")]


@pytest.mark.parametrize(
    ("extra", "args"),
    [
        (NIXL + "disaggregation-ib-device: mlx5_0,mlx5_1\n", ()),
        (NIXL + "disaggregation-ib-device: mlx5_0:1\n", ("--env", "UCX_NET_DEVICES=mlx5_0:1")),
        (
            NIXL + "disaggregation-ib-device: mlx5_0:1\n",
            ("--env", "SGLANG_DISAGGREGATION_NIXL_BACKEND=LIBFABRIC"),
        ),
        ("disaggregation-ib-device: mlx5_0:1\n", ()),  # Mooncake takes ports
        (NIXL + "disaggregation-ib-device: mlx5_0:1\n", ("--sglang-version", "0.5.22")),
    ],
)
def test_nixl_ib_device_accepted(lint, extra, args):
    assert lint(server(extra=extra), *args).findings("SWA418") == []
