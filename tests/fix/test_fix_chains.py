"""Fix chains: applying a fix a rule prints and checking again never yields a finding the first
run did not have. A fix that leads into another error is a broken fix (SWA205 used to advise
bfloat16 on CUDA, where SWA503 refuses a bfloat16 KV cache); `--fix` hid it, because its next
round applied SWA503's fix, so each printed fix is applied here on its own, as a user would.

The inputs: those written to trigger every rule that has edits (tests/fix/test_fix_safety.py),
and one server per fixable finding of the rule tests, each in a folder of its own."""

from __future__ import annotations

import pytest
from conftest import EAGLE, run_cli
from test_fix_safety import SERVERS

# one launch per rule fix the rule tests print (tests/rules/test_swaNNN.py)
SINGLE = {
    "swa201/server.yaml": EAGLE + "page-size: 64\n",
    "swa202/server.yaml": "model-path: models/v4\nspeculative-algorithm: NEXTN\n",
    "swa203/server.yaml": EAGLE + "speculative-num-draft-tokens: 9\n",
    "swa205-bf16/server.yaml": EAGLE + "kv-cache-dtype: bf16\n",
    "swa205-e5m2/server.yaml": EAGLE + "kv-cache-dtype: fp8_e5m2\n",
    "swa301/server.yaml": EAGLE + "page-size: 64\npage-size: 32\n",
    "swa303/server.yaml": EAGLE + "max-runing-requests: 8\n",
    "swa503/server.yaml": EAGLE + "kv-cache-dtype: bfloat16\n",
    "swa501/server.yaml": "model-path: models/v4\ntp-size: 8\nmoe-a2a-backend: deepep\n",
    "swa504/server.yaml": "model-path: models/v4\ntp-size: 1\nmem-fraction-static: 0.5\n",
}
INPUTS = {**SERVERS, **SINGLE}


def _apply(text: str, edits: list[dict]) -> str:
    """The text with a fix's edits (1-based line/column spans) applied, last first."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        return starts[line - 1] + col - 1 if line <= len(lines) else len(text)

    spans = sorted(
        (
            (
                offset(e["line"], e["column"]),
                offset(e["end_line"], e["end_column"]),
                e["replacement"],
            )
            for e in edits
        ),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def _codes(run, name: str) -> set[str]:
    return {f["code"] for d in run.deployments if d["file"] == name for f in d["findings"]}


@pytest.mark.parametrize("gpu", [(), ("--gpu", "H100"), ("--gpu", "B200")], ids=str)
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_no_printed_fix_leads_into_another_finding(tree, name, gpu):
    root = tree(INPUTS)
    folder = name.split("/")[0]
    first = run_cli("--format", "json", *gpu, folder, cwd=root)
    before = _codes(first, name)
    fixes = [
        f["fix"]
        for d in first.deployments
        if d["file"] == name
        for f in d["findings"]
        if f["fix"] and f["fix"]["edits"] and all(e["file"] == name for e in f["fix"]["edits"])
    ]
    original = (root / name).read_text()
    for fix in fixes:
        (root / name).write_text(_apply(original, fix["edits"]))
        again = _codes(run_cli("--format", "json", *gpu, folder, cwd=root), name)
        assert again <= before, (name, fix["description"], sorted(again - before))
    (root / name).write_text(original)


def test_the_bf16_fix_on_cuda_is_fp8_so_that_swa503_does_not_follow(tree):
    root = tree(SINGLE)
    run = run_cli("--format", "json", "swa205-bf16", cwd=root)
    (fix,) = [f["fix"] for f in run.findings("SWA205")]
    (root / "swa205-bf16/server.yaml").write_text(
        _apply((root / "swa205-bf16/server.yaml").read_text(), fix["edits"])
    )
    again = run_cli("--format", "json", "swa205-bf16", cwd=root)
    assert again.exit_code == 0 and again.findings("SWA503") == []
