"""The floor for bench.py: read and parse the same files with nothing but PyYAML's libyaml
loader and the standard library's json, then exit. No positions, no checks, no report.

    python benchmarks/floor.py DIR [DIR...]

Walks each DIR as swacheck does (sorted, hidden folders skipped) and parses every *.yaml,
*.yml and *.json file once. Prints the number of files parsed.
"""

import json
import os
import sys

import yaml

LOADER = yaml.CSafeLoader  # libyaml; fails loudly if PyYAML was built without it


def main(roots: list[str]) -> int:
    n = 0
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                low = name.lower()
                path = os.path.join(dirpath, name)
                if low.endswith((".yaml", ".yml")):
                    with open(path, "rb") as fh:
                        yaml.load(fh, Loader=LOADER)
                elif low.endswith(".json"):
                    with open(path, "rb") as fh:
                        json.load(fh)
                else:
                    continue
                n += 1
    print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
