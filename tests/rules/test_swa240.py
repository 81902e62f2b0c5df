"""SWA240 parallel-sizes-refused: the parallel hook's and argument validation's size asserts.

Each refusal was run against real SGLang 0.5.23 and 0.5.22 (conformance/cases/parallel-sizes.yaml):
same verdict, and the message quotes SGLang's (or, for the bare assert, names its file:line).
"""

from __future__ import annotations

import pytest
from conftest import loc, only

BASE = "model-path: models/v4\ntp-size: 8\n"


def server(extra: str) -> dict[str, str]:
    return {"server.yaml": BASE + extra}


@pytest.mark.parametrize(("version", "line"), [("0.5.23", 326), ("0.5.22", 314)])
def test_tp_not_a_multiple_of_attention_dp_names_the_bare_assert(lint, version, line):
    run = lint(server("attn-dp-size: 3\n"), "--sglang-version", version)
    assert run.exit_code == 1
    f = only(run, "SWA240")
    assert f["message"] == (
        "attn-dp-size: 3: AssertionError: cfg.tp_size % cfg.attn_dp_size == 0 (tp-size 8, "
        f"attention DP 3) (arg_groups/parallel_hook.py:{line} handle_data_parallelism, SGLang {version})"
    )
    assert loc(f) == ("server.yaml", 3, 15)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("nnodes: 3\n", "tp_size must be divisible by number of nodes"),
        ("pp-size: 3\nnnodes: 16\n", "tp_size must be divisible by number of nodes"),
        ("nnodes: 2\ndp-size: 2\n", "multi-node data-parallel replicas are not supported"),
        ("moe-dense-tp-size: 2\n", "moe_dense_tp_size only supports None, 1, or tp_size"),
        ("moe-dp-size: 3\n", "tp_size must be divisible by moe_dp_size"),
        ("attn-cp-size: 3\n", "tp_size must be divisible by attn_cp_size"),
        (
            "attn-cp-size: 4\nattn-dp-size: 4\n",
            "tp_size must be divisible by attn_dp_size * attn_cp_size",
        ),
        ("moe-dp-size: 2\npp-size: 2\n", "PP is not supported with context parallelism"),
        ("moe-dp-size: 2\nep-size: 2\n", "ep_size * moe_dp_size must be equal to tp_size"),
        ("moe-dp-size: 4\nep-size: 4\n", "ep_size * moe_dp_size must be less than or equal"),
        ("dcp-size: 0\n", "must be >= 1, but got dcp_size=0."),
        ("dcp-comm-backend: a2a\n", "--dcp-comm-backend a2a only affects the decode"),
        (
            "dcp-size: 2\nenable-prefill-cp: true\ncp-strategy: interleave\ndisaggregation-mode: prefill\n",
            "--dcp-size > 1 does not support --enable-prefill-cp.",
        ),
    ],
)
def test_each_refused_combination(lint, extra, message):
    run = lint(server(extra), "--sglang-version", "0.5.23")
    assert run.exit_code == 1
    assert any(message in f["message"] for f in run.findings("SWA240")), run.stdout


@pytest.mark.parametrize(
    "extra",
    [
        "attn-dp-size: 4\n",
        "nnodes: 2\n",
        "pp-size: 2\nnnodes: 4\n",
        "moe-dense-tp-size: 8\n",
        "moe-dense-tp-size: 1\n",
        "moe-dp-size: 2\nattn-cp-size: 2\n",
        "dcp-size: 2\ndcp-comm-backend: a2a\n",
        "moe-dp-size: 2\nep-size: 4\nattn-cp-size: 2\n",
    ],
)
def test_sizes_that_divide_pass(lint, extra):
    run = lint(server(extra), "--sglang-version", "0.5.23")
    assert run.findings("SWA240") == []


def test_fi_a2a_is_refused_off_cuda_only(lint):
    extra = "dcp-size: 2\ndcp-comm-backend: fi_a2a\n"
    assert lint(server(extra), "--sglang-version", "0.5.23").findings("SWA240") == []
    run = lint(server(extra), "--sglang-version", "0.5.23", "--platform", "rocm")
    assert "fi_a2a delegates" in only(run, "SWA240")["message"]


def test_releases_whose_code_was_not_read_are_left_alone(lint):
    assert lint(server("attn-dp-size: 3\n"), "--sglang-version", "0.5.21").findings("SWA240") == []
