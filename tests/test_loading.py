"""The position-keeping loader: YAML/JSON -> trees with 1-based line:col spans."""

from __future__ import annotations

import json
from unittest import mock

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from swacheck import limits, loading
from swacheck.loading import (
    MAX_DEPTH,
    FileCache,
    decode,
    load_file,
    parse_json,
    parse_yaml,
    read_text,
)
from swacheck.model.records import InputProblem
from swacheck.model.tree import Mapping, Scalar, Sequence


def span(loc):
    """(line, column, end_line, end_column) of a Location."""
    return (loc.line, loc.column, loc.end_line, loc.end_column)


def yaml_root(text: str, path: str = "f.yaml"):
    docs = list(parse_yaml(text, path))
    assert len(docs) == 1
    return docs[0].root


def yaml_problem(text: str, path: str = "f.yaml") -> InputProblem:
    with pytest.raises(InputProblem) as info:
        list(parse_yaml(text, path))
    return info.value


def json_problem(text: str, path: str = "c.json") -> InputProblem:
    with pytest.raises(InputProblem) as info:
        parse_json(text, path)
    return info.value


# =========================================================================== YAML positions

SERVER_YAML = """\
# SGLang server config
model-path: /models/DeepSeek-V4-Flash
page-size: 256
speculative:
  algorithm: EAGLE
  num-steps: 3
"""


def test_yaml_key_and_value_keep_line_col_and_exclusive_end():
    root = yaml_root(SERVER_YAML)
    pair = root.get("page-size")
    assert span(pair.key_loc) == (3, 1, 3, 10)
    assert span(pair.value.loc) == (3, 12, 3, 15)
    assert pair.value.value == 256


def test_yaml_location_names_the_file():
    root = yaml_root(SERVER_YAML, path="conf/server.yaml")
    assert str(root.get("page-size").key_loc) == "conf/server.yaml:3:1"


def test_yaml_nested_mapping_positions():
    root = yaml_root(SERVER_YAML)
    spec = root.get("speculative")
    assert span(spec.key_loc) == (4, 1, 4, 12)
    assert isinstance(spec.value, Mapping)
    steps = spec.value.get("num-steps")
    assert span(steps.key_loc) == (6, 3, 6, 12)
    assert span(steps.value.loc) == (6, 14, 6, 15)
    assert steps.value.value == 3


def test_yaml_block_sequence_items_keep_positions():
    root = yaml_root("args:\n  - --foo\n  - 8\n")
    seq = root.get("args").value
    assert isinstance(seq, Sequence)
    assert [span(i.loc) for i in seq.items] == [(2, 5, 2, 10), (3, 5, 3, 6)]
    assert seq.plain() == ["--foo", 8]


def test_yaml_flow_mapping_and_sequence_positions():
    root = yaml_root("flow: {k: v, n: [1, 2]}\n")
    flow = root.get("flow").value
    assert isinstance(flow, Mapping) and flow.flow
    assert span(flow.get("k").key_loc) == (1, 8, 1, 9)
    assert span(flow.get("k").value.loc) == (1, 11, 1, 12)
    seq = flow.get("n").value
    assert span(seq.loc) == (1, 17, 1, 23)
    assert span(seq.items[1].loc) == (1, 21, 1, 22)


def test_yaml_block_mapping_is_not_flow():
    assert yaml_root("a: 1\n").flow is False


def test_yaml_quoted_scalars_span_includes_quotes_and_are_marked_quoted():
    root = yaml_root("a: \"bar\"\nb: 'baz'\nc: plain\n")
    a, b, c = (root.get(k).value for k in "abc")
    assert (a.value, a.quoted, span(a.loc)) == ("bar", True, (1, 4, 1, 9))
    assert (b.value, b.quoted, span(b.loc)) == ("baz", True, (2, 4, 2, 9))
    assert (c.value, c.quoted) == ("plain", False)


def test_yaml_quoted_number_stays_a_string():
    root = yaml_root('a: "128"\nb: 128\n')
    assert root.get("a").value.value == "128"
    assert root.get("b").value.value == 128


@pytest.mark.parametrize(
    "raw",
    [
        "128",
        "-3",
        "0x10",
        "0o17",
        "1.5",
        "1e5",
        "1.0e5",
        ".inf",
        "true",
        "False",
        "yes",
        "off",
        "null",
        "~",
        "",
        "hello",
        "'7'",
        '"true"',
        "!!str 12",
        "!!float 3",
    ],
)
def test_yaml_scalars_typed_like_pyyaml_safe_load(raw):
    expected = yaml.safe_load(f"v: {raw}\n")["v"]
    got = yaml_root(f"v: {raw}\n").get("v").value.value
    assert type(got) is type(expected)
    assert got == expected


def test_yaml_scalar_types_int_float_bool_null_str():
    root = yaml_root("i: 10\nf: 2.5\nb: true\nn: null\ns: text\n")
    assert root.plain() == {"i": 10, "f": 2.5, "b": True, "n": None, "s": "text"}
    assert type(root.get("i").value.value) is int
    assert type(root.get("f").value.value) is float


def test_yaml_mapping_plain_gives_python_data():
    root = yaml_root("a: 1\nb:\n  c: [x, 2]\n")
    assert root.plain() == {"a": 1, "b": {"c": ["x", 2]}}


# ---------------------------------------------------------------- multi-document


MULTI = """\
a: 1
---
b: 2
---
c: 3
"""


def test_yaml_multi_document_gives_each_document_with_its_index():
    docs = list(parse_yaml(MULTI, "m.yaml"))
    assert [d.index for d in docs] == [0, 1, 2]
    assert [d.root.plain() for d in docs] == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert span(docs[2].root.get("c").key_loc) == (5, 1, 5, 2)


def test_yaml_duplicates_are_recorded_per_document():
    docs = list(parse_yaml("a: 1\na: 2\n---\nb: 1\n", "m.yaml"))
    assert [d.key for d in docs[0].duplicates] == ["a"]
    assert docs[1].duplicates == []


def test_yaml_empty_and_comment_only_files_have_no_documents():
    assert list(parse_yaml("", "e.yaml")) == []
    assert list(parse_yaml("# only a comment\n", "e.yaml")) == []


def test_load_file_reads_all_yaml_documents(tmp_path):
    p = tmp_path / "multi.yaml"
    p.write_text(MULTI)
    source = load_file(str(p))
    assert source.fmt == "yaml"
    assert source.path == str(p)
    assert source.text == MULTI
    assert [d.index for d in source.documents] == [0, 1, 2]


def test_yaml_empty_document_between_separators_is_skipped_and_indexes_kept():
    docs = list(parse_yaml("a: 1\n---\n---\nb: 2\n", "m.yaml"))
    assert [d.index for d in docs] == [0, 2]
    assert [d.root.plain() for d in docs] == [{"a": 1}, {"b": 2}]


def test_yaml_trailing_document_marker_adds_no_document():
    docs = list(parse_yaml("a: 1\n---\n", "m.yaml"))
    assert [d.root.plain() for d in docs] == [{"a": 1}]


def test_yaml_lone_document_marker_gives_no_document():
    assert list(parse_yaml("---\n", "m.yaml")) == []


def test_yaml_explicit_null_document_is_kept():
    docs = list(parse_yaml("a: 1\n---\nnull\n", "m.yaml"))
    assert [d.index for d in docs] == [0, 1]
    assert isinstance(docs[1].root, Scalar) and docs[1].root.value is None


# ---------------------------------------------------------------- duplicates


DUP_YAML = """\
page-size: 64
tp: 8
page-size: 256
"""


def test_yaml_duplicate_key_recorded_with_both_locations():
    doc = list(parse_yaml(DUP_YAML, "d.yaml"))[0]
    assert len(doc.duplicates) == 1
    dup = doc.duplicates[0]
    assert dup.key == "page-size"
    assert span(dup.first) == (1, 1, 1, 10)
    assert span(dup.again) == (3, 1, 3, 10)
    assert dup.first_pair.value.value == 64
    assert dup.mapping is doc.root


def test_yaml_duplicate_key_last_value_wins():
    root = list(parse_yaml(DUP_YAML, "d.yaml"))[0].root
    pair = root.pairs["page-size"]
    assert pair.value.value == 256
    assert span(pair.key_loc) == (3, 1, 3, 10)
    assert root.plain() == yaml.safe_load(DUP_YAML)


def test_yaml_duplicate_key_in_nested_mapping_is_recorded():
    doc = list(parse_yaml("outer:\n  x: 1\n  x: 2\n", "d.yaml"))[0]
    dup = doc.duplicates[0]
    assert (dup.key, dup.first.line, dup.again.line) == ("x", 2, 3)
    assert dup.mapping is doc.root.get("outer").value


def test_yaml_no_duplicates_for_distinct_keys():
    assert list(parse_yaml(SERVER_YAML, "s.yaml"))[0].duplicates == []


# ---------------------------------------------------------------- unsafe / unsupported


def test_yaml_python_object_tag_is_refused_at_the_tag(tmp_path):
    marker = tmp_path / "executed"
    text = f'a: 1\ncmd: !!python/object/apply:os.system ["touch {marker}"]\n'
    problem = yaml_problem(text)
    assert "unsupported YAML tag" in problem.message
    assert "python/object/apply:os.system" in problem.message
    assert span(problem.location)[:2] == (2, 6)
    assert not marker.exists()


def test_yaml_python_object_tag_on_scalar_is_refused():
    problem = yaml_problem("x: !!python/name:os.system\n")
    assert "unsupported YAML tag" in problem.message
    assert (problem.location.line, problem.location.column) == (1, 4)


def test_yaml_custom_tag_is_refused_at_the_tag():
    problem = yaml_problem("a: 1\nb: !foo bar\n")
    assert problem.message == "unsupported YAML tag '!foo': swacheck reads plain data only"
    assert (problem.location.line, problem.location.column) == (2, 4)
    assert str(problem.to_error()).startswith("f.yaml:2:4: unsupported YAML tag '!foo'")


def test_yaml_custom_tag_on_mapping_is_refused():
    problem = yaml_problem("a: !foo {x: 1}\n")
    assert (
        problem.message
        == "unsupported YAML tag '!foo' on a mapping: swacheck reads plain data only"
    )
    assert (problem.location.line, problem.location.column) == (1, 4)


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {x: 1, y: 1}\nc:\n  <<: *b\n  y: 2\n",  # a written key wins
        "a: &a {k: a, m: a}\nb: &b {k: b, n: b}\nc:\n  z: 0\n  <<: [*a, *b]\n  m: c\n",  # the first wins
        "a: &a {k: 1}\nc: {<<: *a}\n",
        "a: &a {k: a}\nb: &b {k: b, j: b}\nc:\n  <<: *a\n  <<: *b\n",
        "a: &a {k: 1}\nb: &b\n  <<: *a\n  j: 2\nc:\n  <<: *b\n",  # a merge of a merge
    ],
)
def test_yaml_merge_keys_give_what_safe_load_gives_in_its_order(text):
    # SGLang's --config loader and Docker Compose merge; once refused as unsupported
    c = yaml_root(text).pairs["c"].value
    assert list(c.plain().items()) == list(yaml.safe_load(text)["c"].items())


def test_a_merged_key_is_where_the_anchor_writes_it():
    c = yaml_root("base: &b\n  tp-size: 8\nc:\n  <<: *b\n  y: 2\n").pairs["c"].value
    tp = c.pairs["tp-size"]
    assert (tp.key_loc.line, tp.key_loc.column, tp.value.loc.line) == (2, 3, 2)


def test_a_merge_key_takes_mappings_only():
    problem = yaml_problem("c:\n  <<: [1, 2]\n")
    assert problem.message == "a merge key (<<) takes a mapping or a list of mappings"
    assert (problem.location.line, problem.location.column) == (2, 3)


def test_merged_keys_count_against_the_node_budget(monkeypatch):
    monkeypatch.setattr(limits, "MAX_YAML_NODES", 500)
    big = "base: &b {" + ", ".join(f"k{i}: {i}" for i in range(100)) + "}\n"
    text = big + "".join(f"m{n}: {{<<: *b}}\n" for n in range(10))
    problem = yaml_problem(text)
    assert problem.message.startswith("more than 500 YAML nodes in this file")


def test_yaml_quoted_merge_key_is_a_plain_string_key():
    root = yaml_root("'<<': 1\n")
    assert root.plain() == {"<<": 1}


# ---------------------------------------------------------------- anchors and aliases


def test_yaml_anchor_and_alias_share_the_value():
    root = yaml_root("a: &x 5\nb: *x\nm: &m {k: 1}\nn: *m\n")
    assert root.plain() == {"a": 5, "b": 5, "m": {"k": 1}, "n": {"k": 1}}
    assert root.get("b").value is root.get("a").value
    assert root.get("n").value is root.get("m").value


def test_yaml_undefined_alias_is_an_input_problem():
    problem = yaml_problem("a: *nope\n")
    assert problem.message.startswith("invalid YAML:")
    assert "undefined alias" in problem.message
    assert problem.location.line == 1


def _alias_bomb(levels: int) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels):
        refs = ", ".join([f"*l{n - 1}"] * 9)
        lines.append(f"l{n}: &l{n} [{refs}]")
    return "\n".join(lines) + "\n"


def test_yaml_aliases_share_the_anchored_node():
    root = yaml_root(_alias_bomb(4))  # 9**4 strings if it were expanded: within the budget
    top = root.get("l3").value
    assert len(top.items) == 9
    assert all(item is root.get("l2").value for item in top.items)


def test_yaml_alias_bomb_is_refused_while_it_is_parsed():
    """9**9 strings if it were expanded: each alias counts the nodes it stands for against the
    file's node budget, so the file is refused at the alias that passes it, before any reader
    could expand it (issue 23: totals, not only per-value bounds)."""
    problem = yaml_problem(_alias_bomb(9))
    assert problem.message == (
        f"more than {limits.MAX_YAML_NODES} YAML nodes in this file once its aliases are expanded "
        "(the limit per file; an alias counts each time it is used)"
    )
    assert (problem.location.line, problem.location.column) == (6, 20)  # l5: the third *l4


# ---------------------------------------------------------------- depth


def test_yaml_nesting_up_to_max_depth_is_accepted():
    levels = MAX_DEPTH + 1  # root at depth 0, innermost at MAX_DEPTH
    root = yaml_root("[" * levels + "]" * levels)
    assert isinstance(root, Sequence)


def test_yaml_nesting_deeper_than_max_depth_is_refused():
    levels = MAX_DEPTH + 2
    problem = yaml_problem("[" * levels + "]" * levels)
    assert "nested" in problem.message
    assert problem.message == f"nested more than {MAX_DEPTH} levels deep"
    assert (problem.location.line, problem.location.column) == (1, levels)


def test_yaml_very_deep_nesting_is_an_input_problem_not_a_crash():
    # libyaml's own flow-level limit may trip before ours: either way an InputProblem
    problem = yaml_problem("a: " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nest" in problem.message
    assert problem.location is not None and problem.location.line == 1


def test_yaml_very_deep_block_nesting_is_refused():
    text = (
        "".join(f"{' ' * i}k{i}:\n" for i in range(MAX_DEPTH + 5)) + " " * (MAX_DEPTH + 5) + "v\n"
    )
    problem = yaml_problem(text)
    assert "nested" in problem.message


# ---------------------------------------------------------------- syntax errors


@pytest.mark.parametrize(
    "text, line",
    [
        ("a: 1\n b: 2\nc: 3\n", 2),  # bad indentation
        ("a: 1\nb: [1, 2\nc: 3\n", 3),  # unclosed flow sequence
        ("a: 1\nb:\n\tc: 1\n", 3),  # a tab cannot indent
        ("a: 1\nb: 'x\n", 2),  # an unterminated quote is reported where it opens
    ],
)
def test_yaml_syntax_error_reports_path_line_col(tmp_path, text, line):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(InputProblem) as info:
        load_file(str(p))
    err = str(info.value.to_error())
    assert err.startswith(f"{p}:{line}:")
    rest = err[len(f"{p}:{line}:") :]
    col, message = rest.split(": ", 1)
    assert col.isdigit()
    assert message.startswith("invalid YAML: ")


def test_yaml_syntax_error_exact_position():
    problem = yaml_problem("a: 1\n b: 2\nc: 3\n")
    assert (
        str(problem.to_error())
        == "f.yaml:2:3: invalid YAML: mapping values are not allowed in this context"
    )


# =========================================================================== JSON

CONFIG_JSON = """\
{
  "architectures": ["DeepseekV4ForCausalLM"],
  "hidden_size": 7168,
  "rope_theta": 1e5,
  "ratio": 0.5,
  "name": "a\\u00e9\\n",
  "tie": false,
  "extra": null
}
"""


def test_json_key_and_value_positions():
    root = parse_json(CONFIG_JSON, "config.json").root
    pair = root.get("hidden_size")
    assert span(pair.key_loc) == (3, 3, 3, 16)
    assert span(pair.value.loc) == (3, 18, 3, 22)
    assert str(pair.key_loc) == "config.json:3:3"


def test_json_object_and_array_spans_cover_brackets():
    root = parse_json(CONFIG_JSON, "config.json").root
    assert span(root.loc) == (1, 1, 9, 2)
    archs = root.get("architectures").value
    assert isinstance(archs, Sequence)
    assert span(archs.loc) == (2, 20, 2, 45)
    assert span(archs.items[0].loc) == (2, 21, 2, 44)


def test_json_int_and_float_are_distinguished():
    root = parse_json(CONFIG_JSON, "config.json").root
    assert type(root.get("hidden_size").value.value) is int
    assert root.get("rope_theta").value.value == 100000.0
    assert type(root.get("rope_theta").value.value) is float
    assert type(root.get("ratio").value.value) is float


@pytest.mark.parametrize(
    "raw, value",
    [("10", 10), ("-0", 0), ("1e5", 1e5), ("1E-2", 0.01), ("2.0", 2.0), ("-3.5e+2", -350.0)],
)
def test_json_numbers_match_the_json_module(raw, value):
    got = parse_json(raw, "n.json").root.value
    assert got == value
    assert type(got) is type(json.loads(raw))


def test_json_string_escapes_are_decoded_and_span_is_the_raw_text():
    root = parse_json(CONFIG_JSON, "config.json").root
    name = root.get("name").value
    assert name.value == "a\u00e9\n"
    assert name.quoted
    assert span(name.loc) == (6, 11, 6, 22)


def test_json_constants():
    root = parse_json(CONFIG_JSON, "config.json").root
    assert root.get("tie").value.value is False
    assert root.get("extra").value.value is None


def test_json_plain_matches_the_json_module():
    assert parse_json(CONFIG_JSON, "config.json").root.plain() == json.loads(CONFIG_JSON)


def test_json_duplicate_key_recorded_and_last_wins():
    text = '{\n  "a": 1,\n  "b": 2,\n  "a": 3\n}'
    doc = parse_json(text, "c.json")
    assert len(doc.duplicates) == 1
    dup = doc.duplicates[0]
    assert dup.key == "a"
    assert span(dup.first) == (2, 3, 2, 6)
    assert span(dup.again) == (4, 3, 4, 6)
    assert dup.first_pair.value.value == 1
    assert doc.root.pairs["a"].value.value == 3
    assert doc.root.plain() == {"b": 2, "a": 3}


def test_json_document_index_is_zero():
    assert parse_json("{}", "c.json").index == 0


def test_load_file_uses_json_parser_for_json_suffix(tmp_path):
    p = tmp_path / "Config.JSON"
    p.write_text('{"a": 1e5}')
    source = load_file(str(p))
    assert source.fmt == "json"
    assert len(source.documents) == 1
    assert type(source.documents[0].root.get("a").value.value) is float  # YAML 1.1 would say str


def test_load_file_with_text_does_not_read_disk(tmp_path):
    source = load_file(str(tmp_path / "missing.yaml"), text="a: 1\n")
    assert source.documents[0].root.plain() == {"a": 1}


# ---------------------------------------------------------------- JSON errors


def test_json_trailing_comma_in_object():
    problem = json_problem('{\n  "a": 1,\n}')
    assert problem.message == "invalid JSON: a trailing comma is not allowed"
    assert (
        str(problem.to_error()) == "c.json:2:9: invalid JSON: a trailing comma is not allowed"
    )  # at the comma


def test_json_trailing_comma_in_array():
    problem = json_problem('{"a": [1, 2, ]}')
    assert problem.message == "invalid JSON: a trailing comma is not allowed"
    assert (problem.location.line, problem.location.column) == (1, 12)  # at the comma


@pytest.mark.parametrize(
    "text, col",
    [('{"a": NaN}', 7), ('{"a": Infinity}', 7), ('{"a": -Infinity}', 7), ("[1, NaN]", 5)],
)
def test_json_nan_and_infinity_are_refused(text, col):
    problem = json_problem(text)
    assert problem.message == "invalid JSON: NaN and Infinity are not JSON numbers"
    assert (problem.location.line, problem.location.column) == (1, col)


def test_json_missing_colon():
    problem = json_problem('{\n  "a" 1\n}')
    assert str(problem.to_error()) == "c.json:2:7: invalid JSON: expected ':' after the key"


def test_json_unquoted_key():
    problem = json_problem("{\n  a: 1\n}")
    assert str(problem.to_error()) == "c.json:2:3: invalid JSON: expected a quoted key"


def test_json_missing_comma_between_members():
    problem = json_problem('{"a": 1 "b": 2}')
    assert str(problem.to_error()) == "c.json:1:9: invalid JSON: expected ',' or '}'"


def test_json_missing_comma_between_items():
    problem = json_problem("[1 2]")
    assert str(problem.to_error()) == "c.json:1:4: invalid JSON: expected ',' or ']'"


def test_json_extra_data_after_the_value():
    problem = json_problem('{"a": 1}\n{"b": 2}')
    assert str(problem.to_error()) == "c.json:2:1: invalid JSON: extra data after the JSON value"


@pytest.mark.parametrize("text", ["", "   ", "\n\n"])
def test_json_empty_file(text):
    problem = json_problem(text)
    assert problem.message == "invalid JSON: the file is empty"


def test_json_empty_file_position():
    assert str(json_problem("").to_error()) == "c.json:1:1: invalid JSON: the file is empty"


def test_json_unexpected_end_of_file():
    problem = json_problem('{"a":')
    assert (
        str(problem.to_error())
        == "c.json:1:6: invalid JSON: unexpected end of file, expected a value"
    )


def test_json_bad_literal():
    problem = json_problem('{"a": tru}')
    assert (
        str(problem.to_error())
        == "c.json:1:7: invalid JSON: unexpected character 't', expected a value"
    )


def test_json_unterminated_string_points_at_the_opening_quote():
    problem = json_problem('{\n  "name": "abc')
    assert str(problem.to_error()) == "c.json:2:11: invalid JSON: unterminated string"


def test_json_control_character_in_string_is_refused():
    problem = json_problem('{"a": "b\tc"}')
    assert str(problem.to_error()) == "c.json:1:9: invalid JSON: invalid control character"


def test_json_raw_newline_in_string_is_refused():
    problem = json_problem('{"a": "abc\n"}')
    assert str(problem.to_error()) == "c.json:1:11: invalid JSON: invalid control character"


def test_json_bad_escape_is_refused():
    problem = json_problem('{"a": "\\x"}')
    assert problem.message == "invalid JSON: invalid \\escape"
    assert (problem.location.line, problem.location.column) == (1, 8)


def test_json_comments_are_refused():
    problem = json_problem('{\n  // note\n  "a": 1\n}')
    assert str(problem.to_error()) == "c.json:2:3: invalid JSON: expected a quoted key"


def test_json_leading_zero_is_refused():
    problem = json_problem('{"a": 01}')
    assert (problem.location.line, problem.location.column) == (1, 8)


def test_json_nesting_deeper_than_max_depth_is_refused():
    levels = MAX_DEPTH + 2
    problem = json_problem("[" * levels + "]" * levels)
    assert problem.message == f"invalid JSON: nested more than {MAX_DEPTH} levels deep"


def test_json_nesting_up_to_max_depth_is_accepted():
    levels = MAX_DEPTH + 1
    assert isinstance(parse_json("[" * levels + "]" * levels, "c.json").root, Sequence)


def test_json_crlf_line_endings_keep_positions():
    root = parse_json('{\r\n  "a": 1\r\n}\r\n', "c.json").root
    assert span(root.get("a").value.loc) == (2, 8, 2, 9)


# =========================================================================== bytes


def test_decode_accepts_utf8():
    assert decode("a: é\n".encode(), "f.yaml") == "a: é\n"


def test_decode_strips_a_utf8_bom():
    assert decode(b"\xef\xbb\xbfa: 1\n", "f.yaml") == "a: 1\n"


def test_utf8_bom_does_not_shift_positions(tmp_path):
    p = tmp_path / "bom.yaml"
    p.write_bytes(b"\xef\xbb\xbfpage-size: 256\n")
    root = load_file(str(p)).documents[0].root
    assert span(root.get("page-size").key_loc) == (1, 1, 1, 10)


def test_decode_refuses_nul_byte_with_its_line():
    with pytest.raises(InputProblem) as info:
        decode(b"a: 1\nb: 2\nc: \x00\n", "f.yaml")
    assert "NUL byte" in info.value.message
    assert info.value.location.line == 3
    assert str(info.value.to_error()).startswith("f.yaml:3:")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_decode_refuses_utf16(encoding):
    data = "a: 1\n".encode(encoding)
    if encoding != "utf-16":
        data = ("\ufeff" + "a: 1\n").encode(encoding)
    with pytest.raises(InputProblem) as info:
        decode(data, "f.yaml")
    assert "UTF-16" in info.value.message
    assert str(info.value.to_error()) == "f.yaml: file is UTF-16 encoded; save it as UTF-8"


def test_decode_refuses_invalid_utf8_at_the_bad_byte():
    with pytest.raises(InputProblem) as info:
        decode(b"a: 1\nb: x\xffy\n", "f.yaml")
    assert info.value.message == "not valid UTF-8 (byte 0xff)"
    assert span(info.value.location) == (2, 5, 2, 6)
    assert str(info.value.to_error()) == "f.yaml:2:5: not valid UTF-8 (byte 0xff)"


def test_decode_refuses_latin1_text():
    with pytest.raises(InputProblem) as info:
        decode("name: café\n".encode("latin-1"), "f.yaml")
    assert info.value.message == "not valid UTF-8 (byte 0xe9)"
    assert (info.value.location.line, info.value.location.column) == (1, 10)


def test_read_text_reads_utf8_file(tmp_path):
    p = tmp_path / "ok.yaml"
    p.write_bytes("a: é\n".encode())
    assert read_text(str(p)) == "a: é\n"


def test_read_text_missing_file(tmp_path):
    path = str(tmp_path / "nope.yaml")
    with pytest.raises(InputProblem) as info:
        read_text(path)
    assert info.value.message == "no such file"
    assert str(info.value.to_error()) == f"{path}: no such file"


def test_read_text_directory(tmp_path):
    with pytest.raises(InputProblem) as info:
        read_text(str(tmp_path))
    assert info.value.message == "is a directory, expected a file"
    assert str(info.value.to_error()) == f"{tmp_path}: is a directory, expected a file"


def test_read_text_file_over_max_size(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_text("a: 1\n" * 10)  # 50 bytes
    with pytest.raises(InputProblem) as info:
        read_text(str(p), max_size=20)
    assert info.value.message == "file is 50 bytes, above the 20-byte limit (--max-file-size)"
    assert "--max-file-size" in str(info.value.to_error())


def test_read_text_file_exactly_max_size_is_read(tmp_path):
    p = tmp_path / "edge.yaml"
    p.write_text("a: 1\n" * 10)
    assert read_text(str(p), max_size=50) == "a: 1\n" * 10


def test_load_file_refuses_binary_file(tmp_path):
    p = tmp_path / "model.safetensors.json"
    p.write_bytes(b"{\n\x00\x01\x02")
    with pytest.raises(InputProblem) as info:
        load_file(str(p))
    assert "NUL byte" in info.value.message
    assert info.value.location.line == 2


# =========================================================================== FileCache


def test_file_cache_parses_a_file_once(tmp_path):
    p = tmp_path / "config.json"
    p.write_text('{"a": 1}')
    cache = FileCache()
    first = cache.load(str(p))
    p.write_text('{"a": 2}')  # not read again
    second = cache.load(str(p))
    assert second is first
    assert second.documents[0].root.plain() == {"a": 1}
    assert len(cache) == 1


def test_file_cache_same_file_by_another_spelling(tmp_path, monkeypatch):
    p = tmp_path / "config.json"
    p.write_text('{"a": 1}')
    monkeypatch.chdir(tmp_path)
    cache = FileCache()
    assert cache.load(str(p)) is cache.load("./config.json")
    assert len(cache) == 1


def test_file_cache_reraises_the_same_problem_for_a_broken_file(tmp_path):
    p = tmp_path / "broken.json"
    p.write_text('{"a": 1,}')
    cache = FileCache()
    with pytest.raises(InputProblem) as first:
        cache.load(str(p))
    p.write_text('{"a": 1}')  # fixing it does not matter within one run
    with pytest.raises(InputProblem) as second:
        cache.load(str(p))
    assert second.value is first.value
    assert first.value.message == "invalid JSON: a trailing comma is not allowed"


def test_file_cache_missing_file_is_an_input_problem(tmp_path):
    cache = FileCache()
    with pytest.raises(InputProblem, match="no such file"):
        cache.load(str(tmp_path / "nope.yaml"))


def test_file_cache_honours_max_size(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_text("a: 1\n" * 10)
    with pytest.raises(InputProblem, match="20-byte limit"):
        FileCache(max_size=20).load(str(p))


def test_file_cache_uses_given_text_for_stdin():
    cache = FileCache()
    source = cache.load("-", text="a: 1\n")
    assert source.documents[0].root.plain() == {"a": 1}
    assert cache.load("-") is source


def test_file_cache_keeps_distinct_files_apart(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("x: 1\n")
    b.write_text("x: 2\n")
    cache = FileCache()
    assert cache.load(str(a)).documents[0].root.plain() == {"x": 1}
    assert cache.load(str(b)).documents[0].root.plain() == {"x": 2}
    assert len(cache) == 2


# libyaml's own line:column are used for scalars, keys and collections (except a collection that
# ends where the text does) when a text has no character on which libyaml and editors disagree;
# the result must be exactly what the character offsets give.
_PIECES = [
    "\nport: 2\n",  # a duplicate key (its later place is the one kept)
    "\nflow: {a: 1, a: 2}\n",
    "\r",
    "\r\n",
    "\n",
    "\t",
    " ",
    "é",
    "😀",
    "'",
    '"',
    "|",
    ">",
    "- ",
    ": ",
    "#",
    "a",
    "1",
    "{",
    "}",
    "[",
    "]",
    ",",
    "\u00a0",
    "\ufeff",
    "\u2028",
]


def _spans(node, out):
    if isinstance(node, Mapping):
        out.append(("map", span(node.loc)))
        places = [span(pair.key_loc)[:2] for pair in node.pairs.values()]
        assert places == sorted(places), "a mapping's keys are kept in file order"
        for pair in node.pairs.values():
            out.append((pair.key, span(pair.key_loc)))
            _spans(pair.value, out)
    elif isinstance(node, Sequence):
        out.append(("seq", span(node.loc)))
        for item in node.items:
            _spans(item, out)
    else:
        out.append((node.value, span(node.loc)))
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=8),
    st.integers(0, 10_000),
    st.randoms(use_true_random=False),
)
def test_positions_from_libyaml_equal_those_from_offsets(pieces, seed, rnd):
    base = (
        "model-path: /m\r\nlist:\n  - 'x y'\n  - \"é😀\"\nblock: |\n  one\r  "
        "two\nflow: {a: 1, b: [2, 3]}\nport: 30000"
    )
    chars = list(base)
    for piece in pieces:
        chars.insert(rnd.randint(0, len(chars)), piece)
    text = "".join(chars)
    try:
        fast = [_spans(d.root, []) for d in parse_yaml(text, "f.yaml")]
    except InputProblem:
        return
    with mock.patch.object(loading._YamlConverter, "loc", loading._YamlConverter._loc_from_offsets):
        slow = [_spans(d.root, []) for d in parse_yaml(text, "f.yaml")]
    assert fast == slow


@pytest.mark.parametrize(
    "name, text",
    [
        ("c.yaml", "a: 1\nb: 2\na: 3\nc: {x: 1, y: 2, x: 3}\n"),
        ("c.json", '{"a": 1, "b": 2, "a": 3, "c": {"x": 1, "y": 2, "x": 3}}'),
    ],
)
def test_a_mappings_keys_are_in_file_order_with_duplicates_at_their_later_place(name, text):
    root = load_file(name, text=text).documents[0].root
    assert list(root.pairs) == ["b", "a", "c"]
    assert list(root.pairs["c"].value.pairs) == ["y", "x"]
    for mapping in (root, root.pairs["c"].value):
        places = [(p.key_loc.line, p.key_loc.column) for p in mapping.pairs.values()]
        assert places == sorted(places)
