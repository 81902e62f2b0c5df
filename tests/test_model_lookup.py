"""Finding and reading a model's config.json: mappings, local paths, the Hugging Face hub cache."""

from __future__ import annotations

import json
import os

import pytest

from swacheck.loading import FileCache, parse_json
from swacheck.model.records import InputProblem, Location
from swacheck.sglang.models import ModelConfig, ModelStore, locate

HUB_ID = "deepseek-ai/DeepSeek-V4-Flash"
PROD_PATH = "/models/DeepSeek-V4-Flash"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
DSV4 = {
    "architectures": ["DeepseekV4ForCausalLM"],
    "model_type": "deepseek_v4",
    "hidden_size": 7168,
}


@pytest.fixture(autouse=True)
def isolated_hub(tmp_path, monkeypatch):
    """Never look at the real ~/.cache/huggingface of the machine running the tests."""
    empty = tmp_path / "no-hub"
    empty.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(empty))
    monkeypatch.delenv("HF_HOME", raising=False)


def model_dir(parent, name="model", config=None):
    d = parent / name
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps(config if config is not None else DSV4))
    return d


def hub_repo(cache, model_id=HUB_ID, ref="main", commit=COMMIT, config=None):
    """Lay out a hub cache entry like huggingface_hub does; return the snapshot config path."""
    org, name = model_id.split("/")
    repo = cache / f"models--{org}--{name}"
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    if ref is not None:
        (repo / "refs" / ref).write_text(commit + "\n")
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps(config if config is not None else DSV4))
    return snap / "config.json"


def store(mappings=None):
    return ModelStore(FileCache(), mappings or {}, builtin=False)  # the lookup alone


# =========================================================================== local paths


def test_relative_model_path_found_relative_to_base_dir(tmp_path):
    base = tmp_path / "deploy"
    model_dir(base, "v4-flash")
    path, looked = locate("v4-flash", str(base), {})
    assert path == str(base / "v4-flash" / "config.json")
    assert looked == [path]


def test_relative_model_path_falls_back_to_working_directory(tmp_path, monkeypatch):
    base = tmp_path / "deploy"
    base.mkdir()
    cwd = tmp_path / "cwd"
    model_dir(cwd, "v4-flash")
    monkeypatch.chdir(cwd)
    path, looked = locate("v4-flash", str(base), {})
    assert path is not None
    assert os.path.samefile(path, cwd / "v4-flash" / "config.json")
    assert looked[0] == str(base / "v4-flash" / "config.json")


def test_base_dir_wins_over_working_directory(tmp_path, monkeypatch):
    base, cwd = tmp_path / "deploy", tmp_path / "cwd"
    model_dir(base, "m")
    model_dir(cwd, "m")
    monkeypatch.chdir(cwd)
    path, _ = locate("m", str(base), {})
    assert path == str(base / "m" / "config.json")


def test_absolute_model_directory(tmp_path):
    d = model_dir(tmp_path, "abs-model")
    path, looked = locate(str(d), "/somewhere/else", {})
    assert path == str(d / "config.json")
    assert looked == [path]


def test_json_model_path_is_the_file_itself(tmp_path):
    f = tmp_path / "v4.json"
    f.write_text(json.dumps(DSV4))
    path, _ = locate("v4.json", str(tmp_path), {})
    assert path == str(f)


def test_json_model_path_is_not_treated_as_a_directory(tmp_path):
    (tmp_path / "v4.json").mkdir()
    (tmp_path / "v4.json" / "config.json").write_text("{}")
    path, looked = locate("v4.json", str(tmp_path), {})
    assert path is None
    assert str(tmp_path / "v4.json") in looked


def test_directory_path_with_trailing_slash(tmp_path):
    d = model_dir(tmp_path, "m")
    path, _ = locate("m/", str(tmp_path), {})
    assert path == str(d / "config.json")


def test_home_relative_model_path(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    d = model_dir(tmp_path, "models/v4")
    path, _ = locate("~/models/v4", "/elsewhere", {})
    assert path == str(d / "config.json")


def test_directory_without_config_json_is_not_found(tmp_path):
    (tmp_path / "empty-model").mkdir()
    path, looked = locate("empty-model", str(tmp_path), {})
    assert path is None
    assert str(tmp_path / "empty-model" / "config.json") in looked


# =========================================================================== mappings


def test_mapping_to_directory_is_used(tmp_path):
    d = model_dir(tmp_path, "local-copy")
    path, looked = locate(PROD_PATH, str(tmp_path), {PROD_PATH: str(d)})
    assert path == str(d / "config.json")
    assert looked == [f"{d / 'config.json'} (--model-config)"]


def test_mapping_wins_over_an_existing_local_path(tmp_path):
    model_dir(tmp_path, "m")  # would be found relative to base_dir
    mapped = model_dir(tmp_path, "mapped")
    path, _ = locate("m", str(tmp_path), {"m": str(mapped)})
    assert path == str(mapped / "config.json")


def test_mapping_wins_over_the_hub_cache(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    hub_repo(cache)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    mapped = model_dir(tmp_path, "mapped")
    path, _ = locate(HUB_ID, str(tmp_path), {HUB_ID: str(mapped)})
    assert path == str(mapped / "config.json")


def test_mapping_to_a_file(tmp_path):
    f = tmp_path / "flash-config.json"
    f.write_text(json.dumps(DSV4))
    path, _ = locate(PROD_PATH, str(tmp_path), {PROD_PATH: str(f)})
    assert path == str(f)


def test_mapping_matches_model_path_with_trailing_slash(tmp_path):
    d = model_dir(tmp_path, "local-copy")
    path, _ = locate(PROD_PATH + "/", str(tmp_path), {PROD_PATH: str(d)})
    assert path == str(d / "config.json")


def test_mapping_for_another_model_is_ignored(tmp_path):
    d = model_dir(tmp_path, "local-copy")
    path, looked = locate("/models/Other", str(tmp_path), {PROD_PATH: str(d)})
    assert path is None
    assert not any("--model-config" in place for place in looked)


def test_broken_mapping_is_listed_among_places_looked(tmp_path):
    missing = tmp_path / "not-there"
    path, looked = locate(PROD_PATH, str(tmp_path), {PROD_PATH: str(missing)})
    assert path is None
    assert looked[0] == f"{missing} (--model-config)"


# =========================================================================== hub cache


def test_hub_id_found_in_hf_hub_cache(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    expected = hub_repo(cache)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    path, looked = locate(HUB_ID, str(tmp_path / "deploy"), {})
    assert path == str(expected)
    assert looked[-1] == str(expected)


def test_hub_ref_file_is_read_for_main_by_default(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    hub_repo(cache, ref="main", commit=COMMIT)
    hub_repo(cache, ref="v1", commit="f" * 40, config={"architectures": ["Other"]})
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    path, _ = locate(HUB_ID, str(tmp_path), {})
    assert COMMIT in path


def test_hub_revision_uses_refs_of_that_name(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    hub_repo(cache, ref="main", commit=COMMIT)
    v1 = hub_repo(cache, ref="v1", commit="f" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    path, _ = locate(HUB_ID, str(tmp_path), {}, revision="v1")
    assert path == str(v1)


def test_hub_revision_that_is_a_snapshot_name(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    snap = hub_repo(cache, ref=None, commit=COMMIT)  # no refs/ file names it
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    path, _ = locate(HUB_ID, str(tmp_path), {}, revision=COMMIT)
    assert path == str(snap)


def test_hub_unknown_revision_is_not_found(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    hub_repo(cache)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    path, looked = locate(HUB_ID, str(tmp_path), {}, revision="v9")
    assert path is None
    assert looked[-1].endswith(os.path.join("snapshots", "v9", "config.json"))


def test_hf_home_fallback_when_hub_cache_unset(tmp_path, monkeypatch):
    home = tmp_path / "hf-home"
    expected = hub_repo(home / "hub")
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(home))
    path, _ = locate(HUB_ID, str(tmp_path), {})
    assert path == str(expected)


def test_hf_hub_cache_takes_precedence_over_hf_home(tmp_path, monkeypatch):
    home = tmp_path / "hf-home"
    hub_repo(home / "hub", commit="a" * 40)
    cache = tmp_path / "hub"
    expected = hub_repo(cache, commit="b" * 40)
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    path, _ = locate(HUB_ID, str(tmp_path), {})
    assert path == str(expected)


def test_default_hub_cache_under_home(tmp_path, monkeypatch):
    expected = hub_repo(tmp_path / ".cache" / "huggingface" / "hub")
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HF_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    path, _ = locate(HUB_ID, str(tmp_path / "deploy"), {})
    assert path == str(expected)


def test_local_directory_wins_over_hub_cache(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    hub_repo(cache)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    local = model_dir(tmp_path / "deploy", HUB_ID)
    path, _ = locate(HUB_ID, str(tmp_path / "deploy"), {})
    assert path == str(local / "config.json")


def test_absolute_path_is_never_looked_up_in_the_hub(tmp_path, monkeypatch):
    path, looked = locate(PROD_PATH, str(tmp_path), {})
    assert path is None
    assert looked == [os.path.join(PROD_PATH, "config.json")]


# =========================================================================== not found


def test_not_found_lists_every_place_and_suggests_model_config(tmp_path):
    base = tmp_path / "deploy"
    base.mkdir()
    where = Location("deploy/server.yaml", 2, 13, 2, 42)
    with pytest.raises(InputProblem) as info:
        store().from_path(HUB_ID, str(base), where)
    message = info.value.message
    assert message.startswith(f"cannot find config.json for model {HUB_ID!r}; looked in: ")
    _, looked = locate(HUB_ID, str(base), {})
    assert len(looked) == 3  # base dir, working dir, hub cache
    for place in looked:
        assert place in message
    assert str(base / HUB_ID / "config.json") in message
    assert (
        os.path.join(os.environ["HF_HUB_CACHE"], "models--deepseek-ai--DeepSeek-V4-Flash")
        in message
    )
    assert message.endswith(f"point at a local copy with --model-config {HUB_ID}=PATH")


def test_a_mapping_to_a_missing_path_is_reported_not_silently_skipped(tmp_path):
    base = tmp_path / "deploy"
    (base / HUB_ID).mkdir(parents=True)
    (base / HUB_ID / "config.json").write_text("{}")  # would be found without the mapping
    mapped = tmp_path / "missing-copy"
    with pytest.raises(InputProblem) as info:
        store({HUB_ID: str(mapped)}).from_path(HUB_ID, str(base), None)
    assert f"looked in: {mapped} (--model-config);" in info.value.message


def test_not_found_is_reported_where_the_model_path_was_named(tmp_path):
    where = Location("deploy/server.yaml", 2, 13, 2, 42)
    with pytest.raises(InputProblem) as info:
        store().from_path(PROD_PATH, str(tmp_path), where)
    assert info.value.location == where
    assert str(info.value.to_error()).startswith("deploy/server.yaml:2:13: cannot find config.json")
    assert f"--model-config {PROD_PATH}=PATH" in info.value.message


# =========================================================================== ModelConfig


def config_from(data) -> ModelConfig:
    text = data if isinstance(data, str) else json.dumps(data)
    return ModelConfig("config.json", parse_json(text, "config.json").root, "config.json")


def test_is_dsv4_for_deepseek_v4_architecture():
    assert config_from({"architectures": ["DeepseekV4ForCausalLM"]}).is_dsv4


def test_is_dsv4_false_for_deepseek_v3():
    assert not config_from({"architectures": ["DeepseekV3ForCausalLM"]}).is_dsv4


def test_is_dsv4_false_with_only_model_type():
    cfg = config_from({"model_type": "deepseek_v4"})
    assert cfg.model_type == "deepseek_v4"
    assert not cfg.is_dsv4


def test_is_dsv4_looks_only_at_the_first_architecture():
    assert not config_from(
        {"architectures": ["DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM"]}
    ).is_dsv4


def test_is_dsv4_false_for_empty_or_malformed_architectures():
    assert not config_from({"architectures": []}).is_dsv4
    assert not config_from({"architectures": "DeepseekV4ForCausalLM"}).is_dsv4
    assert not config_from({}).is_dsv4


def test_config_get_keeps_position():
    cfg = config_from('{\n  "hidden_size": 7168\n}')
    val = cfg.get("hidden_size")
    assert val.value == 7168
    assert str(val.location) == "config.json:2:18"
    assert cfg.get("missing") is None


def test_int_field_refuses_a_non_integer_at_the_value():
    cfg = config_from('{\n  "sliding_window": "128",\n  "flag": true\n}')
    with pytest.raises(InputProblem) as info:
        cfg.int_field("sliding_window")
    assert info.value.message == "sliding_window must be an integer, got the string '128'"
    assert str(info.value.location) == "config.json:2:21"
    with pytest.raises(InputProblem, match="got the boolean true"):
        cfg.int_field("flag")


# =========================================================================== ModelStore


def test_from_path_parses_config(tmp_path):
    d = model_dir(tmp_path, "m")
    cfg = store().from_path("m", str(tmp_path), None)
    assert cfg.file == str(d / "config.json")
    assert cfg.is_dsv4
    assert cfg.get("hidden_size").value == 7168


def test_from_path_returns_same_object_for_same_file(tmp_path):
    model_dir(tmp_path, "m")
    s = store()
    first = s.from_path("m", str(tmp_path), None)
    second = s.from_path("m", str(tmp_path), None)
    assert second is first
    assert len(s.files) == 1


def test_from_path_same_file_via_mapping_and_path_is_same_object(tmp_path):
    d = model_dir(tmp_path, "m")
    s = store({PROD_PATH: str(d)})
    assert s.from_path(PROD_PATH, "/elsewhere", None) is s.from_path(str(d), "/elsewhere", None)


def test_from_path_file_is_not_reparsed(tmp_path):
    d = model_dir(tmp_path, "m")
    s = store()
    first = s.from_path("m", str(tmp_path), None)
    (d / "config.json").write_text(json.dumps({"architectures": ["Other"]}))
    assert s.from_path("m", str(tmp_path), None).is_dsv4 is first.is_dsv4 is True


def test_from_path_reports_duplicate_keys(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(
        '{\n  "sliding_window": 128,\n  "hidden_size": 7168,\n  "sliding_window": 4096\n}'
    )
    cfg = store().from_path("m", str(tmp_path), None)
    assert [dup.key for dup in cfg.duplicates] == ["sliding_window"]
    dup = cfg.duplicates[0]
    assert (dup.first.line, dup.again.line) == (2, 4)
    assert cfg.get("sliding_window").value == 4096  # the last one wins, as json.load does


def test_from_path_no_duplicates_for_clean_config(tmp_path):
    model_dir(tmp_path, "m")
    assert store().from_path("m", str(tmp_path), None).duplicates == []


def test_from_path_invalid_json_names_the_model_config(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text('{\n  "a": 1,\n}')
    path = str(d / "config.json")
    with pytest.raises(InputProblem) as info:
        store().from_path("m", str(tmp_path), None)
    assert (
        str(info.value.to_error()) == f"{path}:2:9: invalid JSON: a trailing comma is not allowed"
    )


def test_from_path_invalid_json_message_is_stable_across_lookups(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text('{"a": 1,}')
    s = store()
    messages = []
    for _ in range(2):  # e.g. two deployments sharing one broken model config
        with pytest.raises(InputProblem) as info:
            s.from_path("m", str(tmp_path), None)
        messages.append(info.value.message)
    assert messages[1] == messages[0]


def test_from_path_refuses_a_config_that_is_not_an_object(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text("[1, 2]")
    with pytest.raises(InputProblem) as info:
        store().from_path("m", str(tmp_path), None)
    assert info.value.message == "a model config.json must hold a JSON object"
    assert str(info.value.to_error()).startswith(f"{d / 'config.json'}:1:1: ")


def test_from_path_uses_the_hub_cache(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    expected = hub_repo(cache)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    cfg = store().from_path(HUB_ID, str(tmp_path), None)
    assert cfg.file == str(expected)
    assert cfg.is_dsv4
