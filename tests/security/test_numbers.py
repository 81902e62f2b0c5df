"""Numbers a pull request writes cannot end the run (issue 23): an integer past
limits.MAX_NUMBER_DIGITS (Python refuses to convert 4,300 decimal digits; a YAML hex literal of
thousands converts but cannot be printed) is one input error at its position, at parse time, as
is a JSON number past a double's range; and the rules compute in integers, so a 401-digit
tp-size is no float overflow (SWA504 ended the run with an internal error)."""

from __future__ import annotations

import pytest
from budgets_common import GOOD, assert_error_lines, run_cli, write_tree

from swacheck import limits

LONG = f"an integer of more than {limits.MAX_NUMBER_DIGITS} digits (the limit on a number); no setting is that large"
SERVER = "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        ("hex.yaml", SERVER + "tp-size: 0x" + "f" * 4000 + "\n", f"hex.yaml:4:10: {LONG}"),
        ("dec.yaml", SERVER + "tp-size: " + "9" * 5000 + "\n", f"dec.yaml:4:10: {LONG}"),
        ("just.yaml", SERVER + "tp-size: " + "9" * 101 + "\n", f"just.yaml:4:10: {LONG}"),
        ("hex84.yaml", SERVER + "tp-size: 0x" + "f" * 84 + "\n", f"hex84.yaml:4:10: {LONG}"),
        (
            "tagged.yaml",
            SERVER + "tp-size: !!int " + "7" * 5000 + "\n",
            f"tagged.yaml:4:10: {LONG}",
        ),
        (
            "num.json",
            '{"model-path": "models/v4", "tp-size": ' + "9" * 5000 + "}\n",
            f"num.json:1:40: {LONG}",
        ),
        (
            "neg.json",
            '{"model-path": "models/v4", "tp-size": -' + "9" * 101 + "}\n",
            f"neg.json:1:40: {LONG}",
        ),
        (
            "inf.json",
            '{"model-path": "models/v4", "mem-fraction-static": 1e400}\n',
            "inf.json:1:52: a number too large for any setting (past a double's range)",
        ),
    ],
    ids=[
        "yaml-hex",
        "yaml-5000",
        "yaml-101",
        "yaml-hex-84",
        "yaml-tagged",
        "json-5000",
        "json-negative",
        "json-1e400",
    ],
)
def test_a_number_too_long_is_an_input_error_at_its_position(tmp_path, name, text, error):
    root = write_tree(tmp_path, {name: text})
    run = run_cli("--format", "json", name, GOOD, cwd=root)
    assert_error_lines(run, error)


def test_a_hundred_digits_are_still_a_number(tmp_path):
    """The bound is far above any setting, and below it nothing changes (here SWA304's business)."""
    root = write_tree(
        tmp_path,
        {"ok.yaml": SERVER + "speculative-eagle-topk: 1\nrandom-seed: " + "9" * 100 + "\n"},
    )
    run = run_cli("--format", "json", "ok.yaml", GOOD, cwd=root)
    assert "internal error" not in run.stderr and "digits" not in run.stderr, run.stderr


@pytest.mark.parametrize("flag", ["tp-size", "pp-size"])
def test_a_401_digit_parallelism_in_a_script_is_no_float_overflow(tmp_path, flag):
    """--tp-size of 401 digits from a shell command (no parse-time bound: argparse's int()
    takes it): SWA504 divides the weights by it in integers."""
    index = '{"metadata": {"total_size": 159617149040}, "weight_map": {}}'
    script = (
        "python -m sglang.launch_server --model-path models/v4 --speculative-algorithm EAGLE "
        f"--speculative-num-steps 3 --speculative-eagle-topk 1 --{flag} {'9' * 401}\n"
    )
    root = write_tree(tmp_path, {"big.sh": script, "models/v4/model.safetensors.index.json": index})
    run = run_cli("--format", "json", "--gpu", "H200", "big.sh", GOOD, cwd=root)
    assert "internal error" not in run.stderr, run.stderr
    assert run.exit_code in (0, 1), run.stderr
    assert "big" in [d["name"] for d in run.deployments]
