"""Fix chains: applying every fix the rules print and checking again never yields a finding the
first run did not have (a fix that leads into another error is a broken fix: SWA205 used to
advise bfloat16 on CUDA, where SWA503 refuses a bfloat16 KV cache).

The inputs are those written to trigger every rule that has edits (tests/fix/test_fix_safety.py),
the bundled examples, and one server per fixable finding of the rule tests, each in a folder of
its own so that one file's fixes are judged alone."""

from __future__ import annotations

import shutil

import pytest
from conftest import EAGLE, EXAMPLES, run_cli
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


def _codes(run) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for d in run.deployments:
        out.setdefault(d["file"], set()).update(f["code"] for f in d["findings"])
    return out


@pytest.mark.parametrize("gpu", [(), ("--gpu", "H100"), ("--gpu", "B200")])
def test_no_fix_leads_into_another_finding(tree, gpu):
    root = tree({**SERVERS, **SINGLE})
    shutil.copytree(EXAMPLES, root / "examples")
    folders = sorted({n.split("/")[0] for n in {**SERVERS, **SINGLE}}) + ["examples"]
    before = _codes(run_cli("--format", "json", *gpu, *folders, cwd=root))
    run_cli("--fix", "--unsafe-fixes", *gpu, *folders, cwd=root)
    after = _codes(run_cli("--format", "json", *gpu, *folders, cwd=root))
    new = {
        f: sorted(c - before.get(f, set())) for f, c in after.items() if c - before.get(f, set())
    }
    assert new == {}, new
    # and the fixes did something: the bf16 server is clean on CUDA now
    assert "SWA205" not in after.get("swa205-bf16/server.yaml", set())
