"""Find and read a model's Hugging Face ``config.json`` -- from local files only, never the network.

Search order for a model path ``P`` (the value of ``model-path`` or
``speculative-draft-model-path``, or a deployment file's ``model_config``):

1. ``--model-config P=FILE`` (an explicit mapping wins: it is how production paths such as
   ``/models/DeepSeek-V4-Flash`` are pointed at a local copy);
2. ``P`` itself when it is a ``.json`` file, or ``P/config.json`` when it is a directory --
   relative to the folder of the file that names it first, then to the working directory;
3. the Hugging Face hub cache for a hub id ``ORG/NAME``: ``$HF_HUB_CACHE``, else
   ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``; the file is
   ``models--ORG--NAME/snapshots/REV/config.json`` with ``REV`` read from ``refs/<revision>``
   (``main`` by default) or given as a commit hash.
"""

from __future__ import annotations

import os
import re
from dataclasses import field
from typing import Any

from ..loading import FileCache
from ..model.records import InputProblem, Location, Val
from ..model.recordtype import record
from ..model.tree import Mapping, Pair, Scalar, Sequence, kind_name
from . import catalogue as _catalogue

DSPARK_KEYS = (
    "dspark_block_size",
    "dspark_markov_rank",
    "dspark_noise_token_id",
    "dspark_target_layer_ids",
)
HUB_ENV = ("HF_HUB_CACHE", "HF_HOME")  # the server's variables that move its hub cache
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


_MODEL_TYPE = ("model_type",)
_UNSET = object()


@record(repr=False, eq=False)
class ModelConfig:
    """A parsed ``config.json`` (or an inline mapping) with positions."""

    label: str  # "models/v4-flash/config.json" or "deploy.yaml (inline target.model_config)"
    root: Mapping
    file: str | None  # None for an inline mapping inside a deployment file
    duplicates: list = field(default_factory=list)  # duplicate keys in the file
    private: bool = (
        False  # read from outside the run's root: its values are never quoted in messages
    )
    # the built-in catalogue's entry this config comes from (no file was found): every value
    # is named as the catalogue's, with no position
    catalogue: _catalogue.Entry | None = None
    flattened: bool = False  # a DeepSeek-V4.1 config read as SGLang normalises it
    # each key's plain data, made once: thousands of deployments share a config, and rules
    # read its 60-number ``compress_ratios`` for each (the values are never mutated)
    plains: dict = field(default_factory=dict)
    vals: dict = field(default_factory=dict)  # each key's Val (get), made once
    # sglang/hfconfig's load_refusal and pool_refusal answers (per release's CheckpointSites,
    # pool role and KV layout), made once per config
    refusals: dict = field(default_factory=dict)

    @property
    def bundles_dspark(self) -> bool:
        """A non-null ``dspark_block_size`` / ``dspark_markov_rank`` / ``dspark_noise_token_id`` /
        ``dspark_target_layer_ids``: SGLang's ``checkpoint_bundles_dspark_draft``
        (``speculative/dspark_components/dspark_config.py`` 0.5.22:164-176)."""
        return any((v := self.get(k)) is not None and v.value is not None for k in DSPARK_KEYS)

    @property
    def source(self) -> str:
        """Where the values come from: the file, the catalogue entry or the inline mapping."""
        return self.catalogue.label if self.catalogue is not None else self.label

    def has(self, key: str) -> bool:
        """Whether the config writes ``key`` (null or not): ``get(key) is not None``, without
        making the value (a list of 60 numbers is walked for its plain data)."""
        return self.root.get(key) is not None

    def plain(self, key: str) -> Any:
        """The plain data of ``key``'s value (the key must be there), made once per config."""
        plains = self.plains
        if key in plains:
            return plains[key]
        value = plains[key] = self.root.pairs[key].value.plain()
        return value

    def get(self, key: str) -> Val | None:
        """A key's value with where it is, made once per config (``vals``): the rules and the
        resolver ask some twenty of them per deployment (a Val is never changed once made)."""
        vals = self.vals
        if key in vals:
            return vals[key]
        pair = self.root.get(key)
        if pair is None:
            found = None
        elif self.catalogue is not None:
            found = Val(self.plain(key), f"{key} from {self.catalogue.label}")
        else:
            found = Val(
                self.plain(key), f"config.json key {key!r}" if self.file else key, pair.value.loc
            )
        vals[key] = found
        return found

    @property
    def architectures(self) -> list[str]:
        pair = self.root.get("architectures")
        value = self.plain("architectures") if pair else None
        return [a for a in value if isinstance(a, str)] if isinstance(value, list) else []

    @property
    def model_type(self) -> str | None:
        # asked some ten times a deployment, of a config thousands of deployments share: kept
        # beside the keys' plain data (a tuple key, which no JSON key is)
        found = self.plains.get(_MODEL_TYPE, _UNSET)
        if found is _UNSET:
            pair = self.root.get("model_type")
            found = pair.value.plain() if pair and isinstance(pair.value, Scalar) else None
            self.plains[_MODEL_TYPE] = found
        return found

    @property
    def is_dsv4(self) -> bool:
        """SGLang's test: ``hf_config.architectures[0] == "DeepseekV4ForCausalLM"`` (model_hook.py:165-258)."""
        archs = self.architectures
        if not archs and self.file is None:
            return True  # an inline model_config in a deployment file describes a DSV4 pool
        return bool(archs) and archs[0] == "DeepseekV4ForCausalLM"

    def int_field(self, key: str) -> Val | None:
        """An integer field, or an :class:`InputProblem` at the value when it is not one."""
        pair = self.root.get(key)
        if pair is None:
            return None
        v = pair.value
        if not isinstance(v, Scalar) or isinstance(v.value, bool) or not isinstance(v.value, int):
            got = type(v.value).__name__ if self.private and isinstance(v, Scalar) else kind_name(v)
            raise InputProblem(
                f"{key} must be an integer, got {'a ' + got if self.private else got}", v.loc
            )
        if self.catalogue is not None:
            return Val(v.value, f"{key} from {self.catalogue.label}")
        return Val(v.value, "config.json" if self.file else "inline model config", v.loc)

    def v41_flat(self) -> ModelConfig:
        """This DeepSeek-V4.1 config as SGLang reads it: ``normalize_deepseek_v41_config``
        (``srt/configs/deepseek_v41.py`` 0.5.23:23-40, the same in 0.5.21-0.5.22) merges
        ``text_config`` into the top level (a top-level key wins; the text ``model_type`` is
        dropped), takes ``vision_config`` out, keeps ``model_type`` ``deepseek_v41`` and rewrites
        ``architectures`` ``["DeepseekV41ForCausalLM"]`` (exactly) to
        ``["DeepseekV4ForCausalLM"]``. Every value keeps its position in the file."""
        root = self.root
        text = root.get("text_config")
        pairs: dict[str, Pair] = {}
        if text is not None and isinstance(text.value, Mapping):
            pairs.update((k, p) for k, p in text.value.pairs.items() if k != "model_type")
        for k, p in root.pairs.items():
            if k not in ("text_config", "vision_config"):
                pairs.pop(k, None)
                pairs[k] = p
        archs = pairs.get("architectures")
        if archs is not None and archs.value.plain() == ["DeepseekV41ForCausalLM"]:
            loc = archs.value.loc
            first = archs.value.items[0].loc  # type: ignore[union-attr]
            pairs["architectures"] = Pair(
                "architectures",
                archs.key_loc,
                Sequence(loc, [Scalar("DeepseekV4ForCausalLM", first)]),
            )
        flat = Mapping(root.loc, pairs, root.flow)
        return ModelConfig(
            self.label, flat, self.file, self.duplicates, self.private, self.catalogue, True
        )


def hub_cache_dirs(server_env: dict[str, str] | None = None) -> list[str]:
    """Where the hub cache is: the server's own ``HF_HUB_CACHE`` / ``HF_HOME`` first (as SGLang's
    loader, huggingface_hub, would read them: from ``--env``, a deployment file's ``env``, the
    launch's environment), then this machine's (swacheck's own environment)."""
    out: list[str] = []
    server_env = server_env or {}
    if cache := server_env.get("HF_HUB_CACHE"):
        out.append(cache)
    elif home := server_env.get("HF_HOME"):
        out.append(os.path.join(home, "hub"))
    if cache := os.environ.get("HF_HUB_CACHE"):
        out.append(cache)
    elif home := os.environ.get("HF_HOME"):
        out.append(os.path.join(home, "hub"))
    else:
        out.append(os.path.join(os.path.expanduser("~"), ".cache", "huggingface", "hub"))
    return list(dict.fromkeys(out))


# a revision the hub cache can hold: a branch or tag name (no "..", no leading "/") or a commit
_REVISION = re.compile(r"^(?!.*\.\.)[A-Za-z0-9_][\w.\-/]{0,199}$")
_COMMIT = re.compile(r"^[0-9a-f]{4,64}$")  # a commit hash (full or abbreviated)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _not_readable(path: str, root: str | None, cache_folder: str | None = None) -> str | None:
    """Why the existing file ``path`` is not read (a note for "looked in"), or None. A file that
    lies in the run's root as named but outside it once symbolic links are followed is a link a
    pull request can commit (``hf/models--o--n/refs/main -> ~/.secret``, a ``config.json`` or a
    model folder pointing anywhere): never read, and its target never named. Outside the root (a
    shared disk, this machine's hub cache) a hub-cache file is read only when its real path stays
    in its ``models--ORG--NAME`` folder (``cache_folder``): a snapshot's link to ``../../blobs``."""
    if root is None:
        return None
    from ..paths import real

    target = real(path)
    if _within(target, root):
        return None
    named = os.path.abspath(path)
    if _within(named, root) or _within(os.path.realpath(os.path.dirname(named)), root):
        return "a symbolic link to outside the root: not read"
    if cache_folder is not None and not _within(target, real(cache_folder)):
        return "a symbolic link out of its hub-cache folder: not read"
    return None


def _hub_config(
    model_id: str,
    revision: str | None,
    looked: list[str],
    server_env: dict[str, str] | None = None,
    root: str | None = None,
) -> str | None:
    org, name = model_id.split("/", 1)
    rev = revision or "main"
    if not _REVISION.match(rev):
        return None  # `--revision ../../x` must not steer a read (its content would be echoed)
    for cache in hub_cache_dirs(server_env):
        repo = os.path.join(cache, f"models--{org}--{name}")
        ref_file = os.path.join(repo, "refs", rev)
        commit = rev
        refused = os.path.isfile(ref_file) and _not_readable(ref_file, root, repo)
        if refused:
            looked.append(f"{ref_file} ({refused})")
        elif os.path.isfile(ref_file) and os.path.getsize(ref_file) <= 100:
            try:
                with open(ref_file, encoding="utf-8") as fh:
                    found = fh.read(200).strip()  # a commit hash; never more
            except (OSError, UnicodeDecodeError):
                found = ""
            if _COMMIT.match(found):  # a refs file holds a commit hash, nothing else is used
                commit = found
        candidate = os.path.join(repo, "snapshots", commit, "config.json")
        if _found(candidate, looked, root, repo):
            return candidate
    return None


def _found(path: str, looked: list[str], root: str | None, cache_folder: str | None = None) -> bool:
    """Whether ``path`` is a file to read; it goes into ``looked`` either way (with why it is
    not read, when it is there but not readable: ``_not_readable``)."""
    if not os.path.isfile(path):
        looked.append(path)
        return False
    refused = _not_readable(path, root, cache_folder)
    looked.append(f"{path} ({refused})" if refused else path)
    return not refused


def locate(
    model_path: str,
    base_dir: str,
    mappings: dict[str, str],
    revision: str | None = None,
    server_env: dict[str, str] | None = None,
    root: str | None = None,
) -> tuple[str | None, list[str]]:
    """Return (config.json path or None, every place looked). ``server_env``: the server's
    ``HF_HUB_CACHE`` / ``HF_HOME``, looked in before this machine's hub cache. ``root``: the
    run's root; a link inside it that leads outside is never read (``_not_readable``)."""
    looked: list[str] = []
    mapped = mappings.get(model_path) or mappings.get(model_path.rstrip("/"))
    if mapped:
        # An explicit mapping is the user's answer: when it points nowhere, say so, never fall back.
        path = os.path.join(mapped, "config.json") if os.path.isdir(mapped) else mapped
        refused = os.path.isfile(path) and _not_readable(path, root)
        looked.append(
            f"{path} ({refused}) (--model-config)" if refused else f"{path} (--model-config)"
        )
        return (path if os.path.isfile(path) and not refused else None), looked
    expanded = os.path.expanduser(model_path)
    bases = [expanded] if os.path.isabs(expanded) else [os.path.join(base_dir, expanded), expanded]
    for base in dict.fromkeys(os.path.normpath(b) for b in bases):
        path = base if base.lower().endswith(".json") else os.path.join(base, "config.json")
        if _found(path, looked, root):
            return path, looked
    if _HUB_ID.match(model_path) and not os.path.isabs(model_path):
        found = _hub_config(model_path, revision, looked, server_env, root)
        if found:
            return found, looked
    return None, looked


class ModelNotFound(InputProblem):
    """No config.json for a model path; ``mapped``: the user pointed ``--model-config`` at it."""

    def __init__(
        self,
        message: str,
        location: Location | None,
        model_path: str,
        mapped: bool,
        looked: tuple[str, ...] = (),
        also: str = "",
    ):
        super().__init__(message, location)
        self.model_path = model_path
        self.mapped = mapped
        self.looked = looked  # every place looked in
        self.also = also  # what else the finding says (the catalogue's revision)


class ModelStore:
    """Resolves and parses model configs; each file is parsed once per run."""

    def __init__(self, files: FileCache, mappings: dict[str, str], builtin: bool = True):
        self.files = files
        self.mappings = mappings
        self.builtin = builtin  # the built-in catalogue answers when no config.json is found
        self._configs: dict[str, ModelConfig] = {}
        self._located: dict[tuple, tuple[str | None, list[str]]] = {}
        self._flat: dict[tuple, tuple[ModelConfig, ModelConfig]] = {}

    def from_path(
        self,
        model_path: str,
        base_dir: str,
        where: Location | None,
        revision: str | None = None,
        server_env: dict[str, str] | None = None,
    ) -> ModelConfig:
        hub = tuple(sorted((k, v) for k, v in (server_env or {}).items() if k in HUB_ENV))
        key = (model_path, base_dir, revision, hub)  # locate() reads base_dir as given
        if key not in self._located:  # thousands of deployments share a handful of models
            self._located[key] = locate(
                model_path, base_dir, self.mappings, revision, dict(hub), self.files.root
            )
        path, looked = self._located[key]
        mapped = any(item.endswith("(--model-config)") for item in looked)
        if path is None and self.builtin and not mapped:
            entry = _catalogue.match(model_path, revision)
            if entry is not None:
                return self._from_catalogue(entry)
        if path is None:
            missed = _catalogue.missed_revision(model_path, revision) if self.builtin else None
            also = (
                f" (swacheck's catalogue holds {missed.id} at "
                f"{missed.revision[:8] if missed.revision else 'an unknown revision'}"
                f" only, not at revision {revision!r})"
                if missed is not None and not mapped
                else ""
            )
            raise ModelNotFound(
                f"cannot find config.json for model {model_path!r}; looked in: {', '.join(looked)}"
                f"{also}; point at a local copy with --model-config {model_path}=PATH",
                where,
                model_path,
                mapped,
                tuple(looked),
                also,
            )
        if (hit := self._configs.get(path)) is not None:
            return hit
        private = self._check_file(path, where)
        try:
            self.files.keep(path)  # every unit of the run may need it
            source = self.files.load(path)
        except InputProblem as problem:  # the cached problem is shared: never mutate it
            if problem.location is not None:  # "config.json:3:1: invalid JSON ..." already names it
                raise
            raise InputProblem(f"model config {path}: {problem.message}", where) from None
        root = source.documents[0].root if source.documents else None
        if not isinstance(root, Mapping):
            raise InputProblem(
                "a model config.json must hold a JSON object", getattr(root, "loc", None), path
            )
        config = self._configs[path] = ModelConfig(
            path, root, path, list(source.documents[0].duplicates), private
        )
        return config

    def flat(self, model: ModelConfig) -> ModelConfig:
        """A DeepSeek-V4.1 config flattened as SGLang reads it, once per config and run."""
        key = ("\0flat", id(model))
        if (hit := self._flat.get(key)) is None or hit[0] is not model:
            hit = self._flat[key] = (model, model.v41_flat())
        return hit[1]

    def _from_catalogue(self, entry: _catalogue.Entry) -> ModelConfig:
        """The catalogue entry as a model config (one per entry and run)."""
        key = "\0catalogue:" + entry.id
        if (hit := self._configs.get(key)) is None:
            hit = self._configs[key] = ModelConfig(
                entry.label, _catalogue.tree(entry), None, [], False, entry
            )
        return hit

    def _check_file(self, path: str, where: Location | None) -> bool:
        """A model config may lie outside the run's root (checkpoints live in the hub cache or on a
        shared disk), but only a regular file named ``config.json`` is read there, and only as
        JSON; inside the root any ``*.json`` is read. Never a file in ``.git``/``.hg``/``.svn``.
        True when ``path`` is outside the root: its values are then never quoted in messages."""
        from ..paths import in_vcs_metadata, inside

        if in_vcs_metadata(path):
            raise InputProblem(
                f"model config {path!r} is inside version-control metadata; swacheck never reads it",
                where,
            )
        if not path.lower().endswith(".json"):
            raise InputProblem(
                f"model config {path!r} must be a JSON file (a checkpoint's config.json)", where
            )
        root = self.files.root
        if root is None or inside(path, root):
            return False
        if os.path.basename(path) != "config.json" or not os.path.isfile(path):
            raise InputProblem(
                f"model config {path!r} is outside the root {root!r}: there swacheck reads "
                f"only a regular file named config.json (--root)",
                where,
            )
        return True

    @staticmethod
    def inline(mapping: Mapping, label: str) -> ModelConfig:
        return ModelConfig(label, mapping, None)
