"""Launch scripts are not YAML: a script full of `&`, `*`, `:` and `[` is still fixed (no YAML
anchor check, no YAML parse of the result), token by token, and re-checked."""

from __future__ import annotations

from conftest import run_cli

SCRIPT = """\
#!/usr/bin/env bash
set -euo pipefail
[ -d /models ] && echo "models: ok" || exit 1
for f in /models/*; do echo "$f"; done &
python3 -m sglang.launch_server --model-path models/v4 \\
  --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 \\
  --page-size 64 &
wait
"""


def test_a_shell_script_with_yaml_like_characters_is_fixed(tree):
    root = tree({"serve.sh": SCRIPT})
    run = run_cli("--fix", "serve.sh", cwd=root)
    assert run.exit_code == 0, run.stderr
    text = (root / "serve.sh").read_text()
    assert "--speculative-algorithm EAGLE" in text
    assert "not fixable automatically" not in run.stderr
    assert text.splitlines()[:4] == SCRIPT.splitlines()[:4]
    assert run_cli("--fix", "serve.sh", cwd=root).stderr.count("swacheck: fixed") == 0
