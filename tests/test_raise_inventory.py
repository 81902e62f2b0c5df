"""The raise inventory (scripts/raise_inventory.py, conformance/inventory/): every refusal on
SGLang's DeepSeek-V4 start-up path, per release, mapped to a rule or to an exclusion.

Offline: the committed inventories are checked against the committed map. The script itself is
tested on a small stand-in of a wheel. Re-deriving a release's inventory from its wheel runs
only when asked: SWACHECK_RAISE_INVENTORY_WHEELS=/work/wheels (a folder holding VERSION/*.whl).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from swacheck import rules

spec = importlib.util.spec_from_file_location(
    "raise_inventory", ROOT / "scripts" / "raise_inventory.py"
)
ri = importlib.util.module_from_spec(spec)
sys.modules["raise_inventory"] = ri
spec.loader.exec_module(ri)


@pytest.fixture(scope="module")
def coverage():
    return ri.coverage()


@pytest.mark.parametrize("version", ri.RELEASES)
def test_every_site_of_a_supported_release_is_mapped(coverage, version):
    report, _ = coverage
    unmapped = [
        f"{s['id']} ({s['file']}:{s['line']}) {s['text'][:60]}" for s in report[version]["unmapped"]
    ]
    assert not unmapped, "sites in no row of conformance/inventory/map.tsv:\n" + "\n".join(unmapped)


def test_every_map_row_maps_a_site(coverage):
    _, dead = coverage
    assert not [f"map.tsv:{r.line}: {r.selector}" for r in dead]


def test_a_rule_a_site_maps_to_exists_and_its_doc_names_the_site(coverage):
    report, _ = coverage
    docs = {r.CODE: (r.__doc__ or "") for r in rules.RULES}
    wrong = set()
    for version in ri.RELEASES:
        for site, row in report[version]["pairs"]:
            if row is None or not row.verdict.startswith("SWA"):
                continue
            base = site["file"].rsplit("/", 1)[-1]
            function = site["function"].rsplit(".", 1)[-1]
            if row.verdict not in docs:
                wrong.add(f"map.tsv:{row.line}: {row.verdict} is not a rule")
            elif base not in docs[row.verdict] and function not in docs[row.verdict]:
                wrong.add(
                    f"map.tsv:{row.line}: {row.verdict}'s doc names neither {base} nor {function}"
                )
    assert not sorted(wrong)


@pytest.mark.parametrize("version", ri.RELEASES)
def test_the_committed_inventory_is_well_formed(version):
    sites = ri.read_sites(version)
    ids = [s["id"] for s in sites]
    assert len(ids) == len(set(ids)) > 500
    for s in sites:
        assert s["id"].startswith(f"{s['file']}::{s['function']}::{s['kind']}::")
        assert s["kind"] in ("raise", "reraise", "assert", "exit")
        assert s["line"].isdigit()
    env = (ri.INVENTORY / f"env-{version}.tsv").read_text().splitlines()
    assert env[0].split("\t") == list(ri.ENV_HEADER)
    names = {line.split("\t")[0] for line in env[1:]}
    # the switches the DSV4 path reads, which the conformance matrix must vary
    assert {"SGLANG_DSV4_COMPRESS_STATE_DTYPE", "SGLANG_OPT_USE_ONLINE_COMPRESS"} <= names


def test_the_map_refuses_an_unknown_category(tmp_path):
    bad = tmp_path / "map.tsv"
    bad.write_text("configs/x.py::f\texclude:because\tno such category\n")
    with pytest.raises(ri.InventoryError, match="unknown category"):
        ri.read_map(bad)


def test_the_most_specific_row_wins():
    rows = [
        ri.MapRow(1, "a.py::*", "exclude:feature", "r"),
        ri.MapRow(2, "a.py::f", "exclude:arch", "r"),
        ri.MapRow(3, "a.py::f::~page", "SWA201", "r"),
    ]
    for row in rows:
        parts = row.selector.split("::")
        row.file, row.func = "sglang/srt/" + parts[0], parts[1]
        row.text = parts[2][1:] if len(parts) == 3 else None
    site = {"id": "x", "file": "sglang/srt/a.py", "function": "f", "kind": "assert"}
    pairs = ri.classify(
        [
            dict(site, text="page size"),
            dict(site, text="other"),
            dict(site, function="g", text="page"),
        ],
        rows,
    )
    assert [row.line for _, row in pairs] == [3, 2, 1]


# ---------------------------------------------------------------- the script on a stand-in wheel

ROOTS = """\
root sglang.srt.pipeline:run 3
root sglang.srt.pools:Pool.__init__ 1
follow sglang.srt
"""

PIPELINE = """\
import os
import sys
from sglang.srt.environ import envs
from sglang.srt.hooks import run_hook
from sglang.srt.utils import get_bool_env_var


def run(args):
    from sglang.srt.hooks import handle_a, Checker
    run_hook(handle_a, args)
    Checker(args)
    if get_bool_env_var("SGLANG_X"):
        sys.exit(1)


def never_called(args):
    raise RuntimeError("not on the path")
"""

HOOKS = """\
from sglang.srt.environ import envs


def run_hook(f, args):
    f(args)


def handle_a(args):
    assert args.tp % args.dp == 0, f"tp {args.tp} must divide by dp"
    if envs.SGLANG_MODE.get() not in ("a", "b"):
        raise ValueError("bad SGLANG_MODE=" + str(envs.SGLANG_MODE.get()))
    _deep(args)


def _deep(args):
    _deeper(args)


def _deeper(args):
    _deepest(args)


def _deepest(args):
    raise ValueError("four calls deep: beyond the depth")


class Base:
    def __init__(self, args):
        self.check(args)

    def check(self, args):
        try:
            pass
        except KeyError:
            raise


class Checker(Base):
    def __init__(self, args):
        super().__init__(args)
        self.validate(args)

    def validate(self, args):
        if args.page != 256:
            raise AssertionError(f"page {args.page} must be 256")
"""

POOLS = """\
import os


class Pool:
    def __init__(self, size):
        if os.environ.get("SGLANG_POOL") == "1":
            os._exit(3)
        def inner():
            assert size > 0
        inner()
"""


def _wheel(tmp_path: Path, shift: int = 0) -> Path:
    pkg = tmp_path / "wheel" / "sglang" / "srt"
    pkg.mkdir(parents=True)
    (pkg.parent / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    pad = "\n" * shift
    (pkg / "pipeline.py").write_text(pad + PIPELINE)
    (pkg / "hooks.py").write_text(pad + HOOKS)
    (pkg / "pools.py").write_text(pad + POOLS)
    (pkg / "environ.py").write_text("envs = None\n")
    (pkg / "utils.py").write_text("def get_bool_env_var(n):\n    return False\n")
    roots = tmp_path / "roots.txt"
    roots.write_text(ROOTS)
    return tmp_path / "wheel"


def _inventory(tmp_path, shift=0):
    folder = _wheel(tmp_path / f"s{shift}", shift)
    sites, envs, missing, _ = ri.inventory(
        ri.Release(folder), ri.read_roots(tmp_path / f"s{shift}" / "roots.txt")
    )
    return sites, envs, missing


def test_the_script_follows_the_calls_a_hook_pipeline_makes(tmp_path):
    sites, envs, missing = _inventory(tmp_path)
    assert not missing
    got = {(s.function, s.kind, s.exception, s.text) for s in sites}
    assert got == {
        ("run", "exit", "sys.exit", "1"),
        ("handle_a", "assert", "AssertionError", "tp {} must divide by dp"),
        ("handle_a", "raise", "ValueError", "bad SGLANG_MODE={}"),
        ("Checker.validate", "raise", "AssertionError", "page {} must be 256"),  # self.validate
        ("Base.check", "reraise", "", ""),  # through super().__init__ and self.check
        ("Pool.__init__", "exit", "os._exit", "3"),
        ("Pool.__init__.inner", "assert", "AssertionError", "size > 0"),
    }
    # a function nobody calls and a call beyond the root's depth are not on the path
    assert not any("not on the path" in s.text or "beyond the depth" in s.text for s in sites)
    assert {e[0] for e in envs} == {"SGLANG_X", "SGLANG_MODE", "SGLANG_POOL"}


def test_a_site_id_does_not_move_with_its_line(tmp_path):
    a, _, _ = _inventory(tmp_path, 0)
    b, _, _ = _inventory(tmp_path, 7)
    assert [s.id for s in a] == [s.id for s in b]
    assert [s.line + 7 for s in a] == [s.line for s in b]


def test_the_script_reports_a_root_a_release_lacks(tmp_path):
    folder = _wheel(tmp_path)
    (tmp_path / "roots.txt").write_text(ROOTS + "root sglang.srt.pools:Gone.__init__ 1\n")
    _, _, missing, _ = ri.inventory(ri.Release(folder), ri.read_roots(tmp_path / "roots.txt"))
    assert missing == ["sglang.srt.pools:Gone.__init__"]


def test_the_script_refuses_what_is_not_a_release(tmp_path, capsys):
    assert ri.main([str(tmp_path)]) == 2
    assert "no sglang package folder" in capsys.readouterr().err
    (tmp_path / "roots.txt").write_text("rooot x 1\n")
    assert ri.main([str(tmp_path), "--roots", str(tmp_path / "roots.txt")]) == 2


def test_coverage_mode_exits_0_on_the_committed_map(capsys):
    assert ri.main(["--coverage"]) == 0
    out = capsys.readouterr().out
    for version in ri.RELEASES:
        assert f"SGLang {version}: " in out and " 0 unmapped" in out


WHEELS = os.environ.get("SWACHECK_RAISE_INVENTORY_WHEELS")


@pytest.mark.skipif(
    not WHEELS, reason="set SWACHECK_RAISE_INVENTORY_WHEELS=DIR (DIR/VERSION/*.whl)"
)
@pytest.mark.parametrize("version", ri.RELEASES)
def test_the_committed_inventory_is_the_wheels(version):
    wheels = sorted(Path(WHEELS, version).glob("sglang-*.whl"))
    if not wheels:
        pytest.skip(f"no wheel in {WHEELS}/{version}")
    assert ri.main([str(wheels[0]), "--check", version]) == 0
