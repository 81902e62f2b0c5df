"""What the normalise stage produces: one :class:`Deployment` per target/draft server."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from .records import Location, Val
from .recordtype import record
from .tree import Duplicate, Mapping, Node, Pair


@record
class Arg:
    """One server argument as written: canonical dash name, value node, key position."""

    name: str  # the canonical long option it reaches: "model" -> "model-path"
    written: str  # the key as written in the file: "page_size"
    pair: Pair
    how: str = "exact"  # exact | prefix | underscore | ambiguous | unknown (sglang/flags.py)
    kind: str = "store"  # store | store-list | store_true | refused:ACTION
    cli: bool = False  # written on a command line (no --config merger in the way: flags.cli_kind)

    @property
    def value(self) -> Any:
        return self.pair.value.plain()

    @property
    def node(self) -> Node:
        return self.pair.value

    @property
    def key_loc(self) -> Location:
        return self.pair.key_loc

    @property
    def value_loc(self) -> Location:
        return self.pair.value.loc


@record(repr=False, eq=False)
class ServerArgs:
    """SGLang server arguments with positions, and where a new key would be inserted."""

    args: dict[str, Arg]  # by canonical option; the later entry wins, as in argparse
    mapping: Mapping | None  # the mapping they came from (None when there are no args)
    file: str | None  # the file that holds the mapping
    base_dir: str  # relative model paths are looked up here first
    entries: list[Arg] = field(default_factory=list)  # every key, in file order

    def get(self, name: str) -> Arg | None:
        return self.args.get(name)


@record
class ModelRef:
    """Where a pool's model config comes from, when the deployment file names it."""

    path: str | None = None  # a directory or config.json path, resolved against base_dir
    inline: Mapping | None = None  # an inline mapping of config.json keys
    location: Location | None = None  # the key that named it
    base_dir: str = "."


@record
class ExplicitGeometry:
    """Numbers the user wrote under ``target.geometry`` / ``draft.geometry``."""

    values: dict[str, Val] = field(default_factory=dict)

    def get(self, key: str) -> Val | None:
        return self.values.get(key)


@record(repr=False, eq=False)
class Deployment:
    """One SGLang server to check: its name, file, platform, environment, arguments and models."""

    name: str
    file: str  # the file the deployment was read from
    location: Location | None  # its document / top mapping
    platform: Val
    env: dict[str, Val]
    server: ServerArgs
    target_model: ModelRef | None = None  # None: from the server's model-path
    draft_model: ModelRef | None = None  # None: from speculative-draft-model-path / model-path
    target_geometry: ExplicitGeometry = field(default_factory=ExplicitGeometry)
    draft_geometry: ExplicitGeometry = field(default_factory=ExplicitGeometry)
    duplicates: list[Duplicate] = field(default_factory=list)
    assume_pd: bool = False  # no server given: numbers copied from a PD launch's log
    gpu: Val | None = (
        None  # the GPU the server runs on (deployment file gpu:, else --gpu); None: not given
    )
    # The SGLang release the deployment's own file names (an image tag, a pip pin; value "" for an
    # image whose tag names none), used when --sglang-version is not given (inputs/release.py)
    release: Val | None = None
    # a fork of SGLang the file installs or starts (value "sglang-kt"), checked against its base
    fork: Val | None = None
    # What the reader noticed about the text itself (rules SWA306/SWA307): (kind, message, where);
    # kind is "pitfall" (a shell mistake that changes what SGLang receives) or "note".
    notes: list[tuple[str, str, Location | None]] = field(default_factory=list)
    # what a server printed (a log's server_args line, a /server_info answer): the arguments are
    # SGLang's resolution, evidence rather than files to edit (inputs/server_output.py)
    evidence: str = ""
    # configuration the deployment shares with others: the base services a Compose service
    # ``extends`` (name, where), which --fix never edits (it would change every service using them)
    inherited: list[tuple[str, Location]] = field(default_factory=list)


@record(repr=False, eq=False)
class UnreadDeployment(Deployment):
    """A launch swacheck found but cannot read (assembled at run time, a template, a custom
    resource whose launch it cannot find): resolved as not checked, reported by SWA307."""

    reason: str = ""
    limit: bool = False  # not read because a bound stopped reading: an error (SWA307)


def unread(
    name: str,
    file: str,
    location: Location | None,
    platform: Val,
    env: dict[str, Val],
    reason: str,
    limit: bool = False,
) -> UnreadDeployment:
    """A deployment that stands for a launch swacheck cannot read, so it is never a silent pass.
    ``limit``: a bound (calls, nesting, a node budget) stopped the reading."""
    import os

    server = ServerArgs({}, None, file, os.path.dirname(file) or ".")
    return UnreadDeployment(
        name, file, location, platform, dict(env), server, reason=reason, limit=limit
    )


def release_text(release: Val | None, version: str, fork: str = "") -> str:
    """How the report names the release a deployment was checked with, when its file chose it:
    "SGLang 0.5.19, from image tag ..."; "" when --sglang-version (or the default alone) did."""
    if fork:
        return f"{fork}: its own flags, SGLang {version}'s behaviour (the base is not a release)"
    if release is None:
        return ""
    if not release.value:
        return f"SGLang {version}, the default: {release.origin} names no release"
    if str(release.value) != version:
        return f"SGLang {release.value}, from {release.origin} (predicted with {version})"
    return f"SGLang {version}, from {release.origin}"
