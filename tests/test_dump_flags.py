"""scripts/dump_flags.py, the one script that builds a release's flag table, without SGLang:
``--source`` on a small stand-in of a wheel's files, and the table format both ways share."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from conftest import ROOT

spec = importlib.util.spec_from_file_location("dump_flags", ROOT / "scripts" / "dump_flags.py")
dump_flags = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dump_flags)

SERVER_ARGS = """\
import argparse
import dataclasses
from typing import Optional

from sglang.srt.utils.common import nullable_str, SOMETHING_UNKNOWN

SAMPLING_BACKEND_CHOICES = {"pytorch", "flashinfer", "ascend"}


class DeprecatedAction(argparse.Action):
    def __init__(self, option_strings, dest, nargs=0, new_flag=None, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)
        self.new_flag = new_flag

    def __call__(self, parser, namespace, values, option_string=None):
        raise ValueError("deprecated")


@dataclasses.dataclass
class ServerArgs:
    tp_size: int = 1
    page_size: Optional[int] = None
    trust_remote_code: bool = False
    sampling_backend: Optional[str] = None
    model_checksum: Optional[str] = None

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        parser.add_argument("--config", type=str)
        parser.add_argument("--tensor-parallel-size", "--tp-size", type=int, default=ServerArgs.tp_size)
        parser.add_argument("--page-size", type=int, choices=[16, 64, 256])
        parser.add_argument("--trust-remote-code", action="store_true")
        parser.add_argument("--sampling-backend", type=str, choices=SAMPLING_BACKEND_CHOICES)
        parser.add_argument("--model-checksum", type=str, nargs="?", const="")
        parser.add_argument("--tokenizer-mode", type=nullable_str, choices=SOMETHING_UNKNOWN)
        parser.add_argument(
            "--enable-old-thing", action=DeprecatedAction, new_flag="--page-size=64"
        )
        parser.add_argument("--flag", action=argparse.BooleanOptionalAction)
"""
MERGER = """\
import argparse

import yaml


class ConfigArgumentMerger:
    def __init__(self, parser=None):
        self.store_true_actions = [
            a.dest for a in parser._actions if isinstance(a, argparse._StoreTrueAction)
        ]
        self.unsupported_actions = {
            a.dest: a
            for a in parser._actions
            if a.option_strings
            and not isinstance(a, (argparse._StoreTrueAction, argparse._StoreAction))
            and "--config" not in a.option_strings
            and "--help" not in a.option_strings
        }
"""
COMMON = "def nullable_str(val):\n    return val or None\n"


@pytest.fixture
def wheel(tmp_path):
    pkg = tmp_path / "sglang"
    (pkg / "srt" / "utils").mkdir(parents=True)
    (pkg / "srt" / "server_args.py").write_text(SERVER_ARGS)
    (pkg / "srt" / "server_args_config_parser.py").write_text(MERGER)
    (pkg / "srt" / "utils" / "common.py").write_text(COMMON)
    return pkg


def test_source_reads_a_wheel_without_importing_it(wheel):
    text = dump_flags.table("9.9.9", *dump_flags.from_source(str(wheel)))
    assert text == textwrap.dedent(
        """\
        # Long options of `python -m sglang.launch_server` in SGLang 9.9.9, read from ServerArgs.add_cli_args
        # of the released wheel (srt/server_args.py). Columns: option, canonical option (aliases point at it),
        # how the --config merger treats it (store / store-list / store_true / refused:ACTION, see
        # srt/server_args_config_parser.py), argparse type, choices.
        config\tconfig\tstore\tstr\t-
        enable-old-thing\tenable-old-thing\trefused:DeprecatedAction\t-\t-
        flag\tflag\trefused:BooleanOptionalAction\t-\t-
        model-checksum\tmodel-checksum\tstore-list\tstr\t-
        no-flag\tflag\tvalued-flag:BooleanOptionalAction\t-\t-
        page-size\tpage-size\tstore\tint\t16,64,256
        sampling-backend\tsampling-backend\tstore\tstr\tascend,flashinfer,pytorch
        tensor-parallel-size\ttp-size\tstore\tint\t-
        tokenizer-mode\ttokenizer-mode\tstore\tnullable_str\t-
        tp-size\ttp-size\tstore\tint\t-
        trust-remote-code\ttrust-remote-code\tstore_true\t-\t-
        """
    )


def test_set_choices_keep_the_committed_order_when_the_set_is_the_same(wheel, monkeypatch):
    monkeypatch.setattr(
        dump_flags, "committed_choices", lambda v: {"sampling-backend": "pytorch,ascend,flashinfer"}
    )
    text = dump_flags.table("9.9.9", *dump_flags.from_source(str(wheel)))
    assert "sampling-backend\tsampling-backend\tstore\tstr\tpytorch,ascend,flashinfer\n" in text
    monkeypatch.setattr(
        dump_flags, "committed_choices", lambda v: {"sampling-backend": "pytorch,ascend"}
    )
    text = dump_flags.table("9.9.9", *dump_flags.from_source(str(wheel)))
    assert "sampling-backend\tsampling-backend\tstore\tstr\tascend,flashinfer,pytorch\n" in text


def test_check_compares_byte_for_byte(wheel, tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setattr(dump_flags, "DATA", data)
    out = data / "server-args-9.9.9.tsv"
    assert dump_flags.main(["--sglang", "9.9.9", "--source", str(wheel), "-o", str(out)]) == 0
    assert dump_flags.main(["--sglang", "9.9.9", "--source", str(wheel), "--check"]) == 0
    assert "identical" in capsys.readouterr().err
    out.write_text(out.read_text().replace("16,64,256", "16,256"))
    assert dump_flags.main(["--sglang", "9.9.9", "--source", str(wheel), "--check"]) == 1
    assert "-page-size\tpage-size\tstore\tint\t16,256" in capsys.readouterr().out


def test_a_release_whose_parser_needs_sglang_says_so(tmp_path, wheel):
    (wheel / "srt" / "server_args.py").write_text(
        SERVER_ARGS.replace(
            'parser.add_argument("--config", type=str)', "dataclasses.fields(SOMETHING_UNKNOWN)"
        )
    )
    with pytest.raises(SystemExit, match="cannot run without SGLang"):
        dump_flags.from_source(str(wheel))


def test_deprecations_lists_what_sglang_names_in_place(wheel, capsys):
    assert dump_flags.main(["--sglang", "9.9.9", "--source", str(wheel), "--deprecations"]) == 0
    assert capsys.readouterr().out == "--enable-old-thing\t--page-size=64\n"
