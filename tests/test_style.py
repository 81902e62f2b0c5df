"""The project's own lint and format configuration holds for every file (pyproject.toml [tool.ruff])."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check_is_clean():
    run = ruff("check", "--output-format", "concise", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_format_leaves_every_file_as_it_is():
    run = ruff("format", "--check", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_function_of_the_package_above_radon_grade_c():
    """Cyclomatic complexity at most 20 for every function of swacheck/ (radon counts boolean
    operators too, so it is stricter than ruff's C901 at the same bound)."""
    from radon.complexity import cc_visit

    def blocks(found):  # functions, methods of classes, and functions defined inside them
        for block in found:
            yield block
            yield from blocks(getattr(block, "methods", []))
            yield from blocks(getattr(block, "closures", []))

    over = []
    for path in sorted((ROOT / "swacheck").rglob("*.py")):
        for block in blocks(cc_visit(path.read_text(encoding="utf-8"))):
            if block.complexity > 20 and not hasattr(block, "methods"):  # a class sums its methods
                over.append(
                    f"{path.relative_to(ROOT)}:{block.lineno} {block.name} {block.complexity}"
                )
    assert not over, "\n".join(over)


def test_records_are_declared_with_record_not_dataclass():
    # recordtype.py: @record shares __repr__/__eq__/__hash__ instead of compiling them per class
    # at start-up; a plain @dataclass would quietly bring that cost back
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "swacheck").rglob("*.py"))
        if path.name != "recordtype.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.lstrip().startswith("@dataclass")
    ]
    assert found == [], "use @record (swacheck/model/recordtype.py): " + ", ".join(found)
