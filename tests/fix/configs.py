"""Generated server configs and deployment files that exercise ``--fix``: every YAML feature a
fix must not break (anchors and aliases, flow mappings, block scalars, empty values,
multi-document streams, tabs, CRLF, a BOM, no final newline) around the findings that have
fixes (NEXTN, a missing top-k, a typo, page-size, a duplicate key, a removed flag, the draft
path, draft tokens).

``make_case(rnd)`` takes a ``random.Random``: the property tests draw it from Hypothesis, the
fuzz script in ``benchmarks/fix_fuzz.py`` seeds it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# keys a fix may touch (their lines may change); every other line must stay byte-for-byte
TOUCHED = (
    "speculative-algorithm",
    "speculative-eagle-topk",
    "speculative-num-steps",
    "speculative-num-stesp",
    "page-size",
    "speculative-draft-model-path",
    "speculative-num-draft-tokens",
    "disable-piecewise-cuda-graph",
    "models/mtp256",  # a block scalar's body line of the draft path
)


@dataclass
class Case:
    name: str  # file name
    text: str  # decoded text, line breaks as written, without the BOM
    newline: str
    bom: bool

    def data(self) -> bytes:
        return (b"\xef\xbb\xbf" if self.bom else b"") + self.text.encode()


def _comment(rnd: random.Random) -> str:
    return "# " + "".join(rnd.choice("abc xyz:-'\"\t") for _ in range(rnd.randint(0, 12)))


def _entries(rnd: random.Random) -> list[tuple[str, str]]:
    """(key, value text) pairs of one server; a value text may hold an anchor, an alias, a
    block scalar (lines joined by \\n) or be empty."""
    out = [("model-path", rnd.choice(["models/v4", "'models/v4'", '"models/v4"']))]
    if rnd.random() < 0.6:
        out.append(("disaggregation-mode", rnd.choice(["decode", "prefill", '"decode"'])))
    out.append(("speculative-algorithm", rnd.choice(["EAGLE", "NEXTN", "eagle", "", "'NEXTN'"])))
    topk = rnd.choice(["1", "2", None, None])
    if topk is not None:
        out.append(("speculative-eagle-topk", topk))
    steps = rnd.choice(["speculative-num-steps", "speculative-num-stesp", None])
    anchored_steps = rnd.random() < 0.3
    if steps is not None:
        out.append((steps, "&n 3" if anchored_steps else "3"))
    draft_tokens = rnd.choice([None, "4", "9", "*n" if anchored_steps and steps else "5"])
    if draft_tokens is not None:
        out.append(("speculative-num-draft-tokens", draft_tokens))
    if rnd.random() < 0.4:
        out.append(("page-size", rnd.choice(["64", "256", "'64'"])))
    if rnd.random() < 0.4:
        out.append(
            (
                "speculative-draft-model-path",
                rnd.choice(
                    [
                        "models/mtp256",
                        "'models/mtp256'",
                        "|-\n  models/mtp256",
                        ">-\n  models/mtp256",
                    ]
                ),
            )
        )
    if rnd.random() < 0.3:
        anchored = rnd.random() < 0.5
        out.append(("tp-size", "&tp 8" if anchored else "8"))
        if anchored:
            out.append(("ep-size", "*tp"))
    if rnd.random() < 0.15:
        out.append(("disable-piecewise-cuda-graph", "true"))
    if rnd.random() < 0.15:
        out.append(("page-size", "32"))  # a duplicate key (or the only page-size)
    rnd.shuffle(out)
    model = next(e for e in out if e[0] == "model-path")
    out.remove(model)
    # an alias after its anchor (an alias before it is invalid YAML: a few such files stay, as
    # inputs that must never be written)
    if rnd.random() < 0.95:
        for alias, anchor in (("*n", "&n "), ("*tp", "&tp ")):
            a = next((i for i, e in enumerate(out) if e[1] == alias), None)
            b = next((i for i, e in enumerate(out) if e[1].startswith(anchor)), None)
            if a is not None and b is not None and a < b:
                out[a], out[b] = out[b], out[a]
    return [model, *out]  # model-path first: keeps the file a server config for the loader


def _block(rnd: random.Random, entries: list[tuple[str, str]], indent: str) -> list[str]:
    lines = []
    for key, value in entries:
        for _ in range(rnd.choice([0, 0, 0, 1, 2])):
            lines.append(rnd.choice([indent + _comment(rnd), ""]))
        first, *rest = value.split("\n")
        sep = rnd.choice([" ", " ", "  "]) if first else ""
        trailing = (
            rnd.choice(["", "", "  " + _comment(rnd), "\t" + _comment(rnd)]) if not rest else ""
        )
        lines.append(f"{indent}{key}:{sep}{first}{trailing}")
        lines.extend(indent + r for r in rest)
    return lines


def _flow(rnd: random.Random, entries: list[tuple[str, str]]) -> list[str]:
    plain = [(k, v) for k, v in entries if "\n" not in v and not v.startswith(("&", "*")) and v]
    parts = [f"{k}: {v}" for k, v in plain]
    if rnd.random() < 0.5:
        return ["{" + ", ".join(parts) + "}"]
    return ["{"] + [f"  {p}," for p in parts[:-1]] + [f"  {parts[-1]}", "}"]


def _script(rnd: random.Random, entries: list[tuple[str, str]]) -> list[str]:
    """A launch script: the same arguments as flags, with shell around them that YAML would
    misread (``&``, ``*``, ``:``, ``[``)."""
    words = []
    for key, value in entries:
        value = value.split("\n")[-1].strip().removeprefix("&n ").removeprefix("&tp ")
        value = {"*n": "3", "*tp": "8", "": None}.get(value, value)
        if value is None:
            continue
        if key == "disable-piecewise-cuda-graph":
            words.append(f"--{key}")
        else:
            words.append(
                rnd.choice(
                    [f"--{key} {value}", f"--{key}={value}", f"--{key} '{value.strip(chr(39))}'"]
                )
            )
    sep = rnd.choice([" ", " \\\n  "])
    launch = (
        "python3 -m sglang.launch_server "
        + sep.join(words)
        + rnd.choice(["", " &", " 2>&1 | tee log.txt"])
    ).split("\n")
    head = ["#!/usr/bin/env bash", "set -euo pipefail"]
    if rnd.random() < 0.5:
        head.append('[ -d /models ] && echo "models: [ok]" || exit 1')
    if rnd.random() < 0.5:
        head.append('for f in /models/*; do echo "$f"; done')
    return head + launch + (["wait"] if rnd.random() < 0.5 else [])


def make_case(rnd: random.Random, index: int = 0) -> Case:
    form = rnd.choice(["server", "server", "flow", "deployment", "multi", "script"])
    if form == "script":
        lines = _script(rnd, _entries(rnd))
        return Case(f"serve{index}.sh", "\n".join(lines) + "\n", "\n", False)
    if form == "server":
        lines = _block(rnd, _entries(rnd), "")
        name = f"server{index}.yaml"
    elif form == "flow":
        lines = _flow(rnd, _entries(rnd))
        name = f"flow{index}.yaml"
    else:
        docs = []
        for d in range(2 if form == "multi" else 1):
            indent = rnd.choice(["  ", "    "])
            doc = ["swacheck: 1", f"name: dep{index}-{d}", "server:"] + _block(
                rnd, _entries(rnd), indent
            )
            docs.append(doc)
        lines = []
        for d, doc in enumerate(docs):
            if d or rnd.random() < 0.3:
                lines.append("---")
            lines.extend(doc)
        name = f"deploy{index}.yaml"
    newline = rnd.choice(["\n", "\n", "\r\n"])
    text = newline.join(lines)
    if rnd.random() < 0.8:
        text += newline
    return Case(name, text, newline, rnd.random() < 0.15)


def untouched_lines(text: str, newline: str) -> list[str]:
    """The lines no fix may change: every line that names none of the touched keys."""
    return [line for line in text.split(newline) if not any(k in line for k in TOUCHED)]


def is_subsequence(small: list[str], big: list[str]) -> bool:
    it = iter(big)
    return all(any(line == other for other in it) for line in small)
