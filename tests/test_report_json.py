"""The JSON report writes what it builds: the text ``Stream`` writes parses to ``as_data``'s plain
data, escaped, and a pair's compared values (written from a memo, report/json_format.py
``Compared``) are the encoding of their plain form."""

from __future__ import annotations

import io
import json

from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from swacheck.model.records import Location, Val
from swacheck.report import json_format
from swacheck.report.escape import json_data

FOLDERS = ["examples/cuda-paged", "examples/pd-unified-one-side", "examples/cuda-draft-window"]


def test_the_written_report_is_its_data(monkeypatch):
    from swacheck.engine import run
    from swacheck.settings import Settings

    monkeypatch.chdir(ROOT)
    result = run(Settings(paths=list(FOLDERS), color="never"))
    out = io.StringIO()
    json_format.render(result, out)
    written = json.loads(out.getvalue())
    assert written["pairs"] and any(p["compared"] for p in written["pairs"])
    # json.dumps tells true from 1, which == does not
    assert json.dumps(written) == json.dumps(json_data(json_format.as_data(result)))


_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["fp8_e4m3", "v4/auto", "1", "True", "a\u0007b", "token=ghp_" + "a1B2" * 9]),
)
_origins = st.sampled_from(
    ["SGLang default (DSV4 override)", "tp-size", "x\u001b[31m", "password: hunter2hunter2"]
)
_locations = st.one_of(
    st.none(),
    st.builds(
        Location,
        # a file's text made once for its locations (json_format._from): names the place
        # escaping takes, and ones it refuses (a token hint, a leading "::")
        st.sampled_from(
            ["a.yaml", "dir/b\u202e.yaml", "::x.yaml", "ghp_" + "a1B2" * 9 + ".yaml", "é:1.yaml"]
        ),
        st.integers(-1, 3),  # a negative line or column: json_text_at refuses it
        st.integers(-1, 3),
        st.just(1),
        st.just(9),
    ),
)
_vals = st.builds(Val, _values, _origins, _locations)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["page_size", "tp_size", "k\u0000"]), _vals, _vals),
        unique_by=lambda row: row[0],  # a pair's values are named once (ServerPair.rows)
    )
)
def test_compared_values_are_written_as_their_data_encodes(rows):
    compared = json_format.Compared(rows)
    for _ in range(2):  # the second time from the memo
        assert compared.text() == json_format._compact(compared.data())


def test_one_and_true_are_not_confused_by_the_memo():
    one = json_format.Compared([("x", Val(1, "d"), Val(1, "d"))]).text()
    true = json_format.Compared([("x", Val(True, "d"), Val(True, "d"))]).text()
    assert '"prefill": 1,' in one and '"prefill": true,' in true


def test_a_memo_stays_bounded_and_keeps_taking_new_entries():
    # once a memo stopped taking entries when full: at 20,000 deployments every string of the
    # later files missed it (167,000 misses)
    from swacheck.report.escape import keep

    memo: dict[int, int] = {}
    for i in range(10):
        keep(memo, i, i * i, 4)
        assert len(memo) <= 4 and memo[i] == i * i


_json = st.recursive(
    st.one_of(_values, st.floats(allow_nan=False), st.just("")),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b\n"]), inner)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["file", "findings", "target", "k\u0000", "compared"]),
        st.one_of(
            _json, st.builds(json_format.Compared, st.just([("x", Val(1, "d"), Val(2, "d"))]))
        ),
        min_size=1,
    )
)
def test_a_deployment_or_pair_is_laid_out_as_dump_lays_it_out(value):
    out = io.StringIO()
    json_format.dump(value, out, 2)
    assert json_format._text(value) == out.getvalue()
