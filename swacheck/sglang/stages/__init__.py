"""SGLang's argument resolution as stages, one module each, named after SGLang's; run in
SGLang's order by ``sglang/resolve.py``. docs/sglang.md has the SGLang facts of each stage."""
