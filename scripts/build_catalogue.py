"""Build swacheck's built-in checkpoint catalogue (swacheck/sglang/data/checkpoints.json) from the
shared research data, the one source of its values:

    python scripts/build_catalogue.py [--shared ../shared/data/dsv4-published-checkpoints.json]
    python scripts/build_catalogue.py --check      # exit 1 when the committed file is out of step

Each entry is copied as the research states it: ``id``, ``revision``, ``status`` (confirmed /
partial / geometry-only), ``config`` (the values it confirms; a key not there is unknown for a
partial or geometry-only entry), ``uncertain`` (only the names of its single-source keys: their
values are never used), ``total_size``, ``expert_format``. Nothing is derived, filled in from a
sibling or guessed. Three structured facts are lifted out of the notes, each from the note's own
words: a later revision that changes README.md only (``same_config_revisions``), "NO NextN head"
(``no_nextn_head``) and the bytes of the files holding the DSpark stages (``dspark_draft_bytes``).
``tests/test_catalogue.py`` runs this against ``../shared`` when it is beside the repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_SHARED = os.path.join(
    os.path.dirname(REPO), "shared", "data", "dsv4-published-checkpoints.json"
)
TARGET = os.path.join(REPO, "swacheck", "sglang", "data", "checkpoints.json")
STATUSES = ("confirmed", "partial", "geometry-only")
FORMATS = ("mxfp4", "fp8", "nvfp4", None)
_SAME = re.compile(r"later commit ([0-9a-f]{40}) changes README\.md only")
_NO_NEXTN = re.compile(r"\bNO NextN head\b")
_DSPARK_BYTES = re.compile(r"three DSpark stages .*?\(.*?([\d,]+) bytes of files\)")


def build(raw: bytes) -> dict:
    """The package's catalogue from the shared file's bytes (raises ValueError on a bad entry)."""
    data = json.loads(raw.decode("utf-8"))
    if not isinstance(data, list):
        raise ValueError("the shared file must hold a list of checkpoints")
    entries = []
    for item in data:
        if item.get("status") not in STATUSES or item.get("expert_format") not in FORMATS:
            raise ValueError(f"{item.get('id')!r}: unknown status or expert_format")
        if not isinstance(item.get("config"), dict):
            raise ValueError(f"{item.get('id')!r}: config must be an object")
        same = sorted({m.group(1) for note in item.get("notes", ()) for m in _SAME.finditer(note)})
        no_nextn = any(_NO_NEXTN.search(note) for note in item.get("notes", ()))
        stage_bytes = {
            int(m.group(1).replace(",", ""))
            for note in item.get("notes", ())
            for m in _DSPARK_BYTES.finditer(note)
        }
        if len(stage_bytes) > 1:
            raise ValueError(f"{item['id']!r}: the notes give two DSpark draft sizes")
        entries.append(
            {
                "id": item["id"],
                "revision": item.get("revision"),
                "status": item["status"],
                "config": item["config"],
                "uncertain": sorted(item.get("uncertain", {})),
                "total_size": item.get("total_size"),
                "expert_format": item.get("expert_format"),
                "same_config_revisions": same,
                # the notes: the checkpoint holds DSpark stages and no NextN head, and the bytes
                # of the files holding the stages
                "no_nextn_head": no_nextn,
                "dspark_draft_bytes": stage_bytes.pop() if stage_bytes else None,
            }
        )
    return {
        "generated_from": "shared/data/dsv4-published-checkpoints.json",
        "sha256": hashlib.sha256(raw).hexdigest(),
        "by": "scripts/build_catalogue.py",
        "entries": entries,
    }


def render(catalogue: dict) -> str:
    return json.dumps(catalogue, indent=1, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=DEFAULT_SHARED, help="the shared research JSON")
    ap.add_argument("-o", "--output", default=TARGET)
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    args = ap.parse_args(argv)
    with open(args.shared, "rb") as fh:
        text = render(build(fh.read()))
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as fh:
                same = fh.read() == text
        except OSError:
            same = False
        if not same:
            print(f"{args.output} is out of step with {args.shared}: rerun {sys.argv[0]}")
            return 1
        return 0
    with open(args.output, "w", encoding="utf-8") as fh:
        fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
