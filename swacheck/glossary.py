"""The words swacheck's reports use, explained once (``swacheck explain --glossary``; the README's
"Glossary" section holds the same entries, checked by a test)."""

GLOSSARY: tuple[tuple[str, str], ...] = (
    ("DSV4", "DeepSeek-V4, the model family swacheck checks (DeepseekV4ForCausalLM)."),
    (
        "SWA",
        "sliding-window attention: most DSV4 layers attend to the last `window` "
        "tokens only, so their KV cache is a ring of pages, not a growing list.",
    ),
    (
        "KV pool",
        "the GPU memory SGLang sets aside for a model's attention keys and "
        "values; the target model and its draft each have one.",
    ),
    (
        "target / draft",
        "speculative decoding runs a small draft model ahead of the large target "
        "model; SGLang requires both pools to have the same SWA geometry.",
    ),
    (
        "MTP",
        "multi-token prediction: DeepSeek-V4's draft is the checkpoint's own "
        "extra layer, loaded from the target's model-path.",
    ),
    (
        "NextN",
        "SGLang's name for that MTP layer (speculative-algorithm NEXTN is an alias of EAGLE, refused for DSV4).",
    ),
    ("EAGLE / DSPARK", "the speculative-decoding algorithms SGLang accepts for DSV4."),
    (
        "geometry",
        "the numbers SGLang compares between the target and draft pools: (window, "
        "ring_size, pages) for unified KV, (page_size, sliding_window, "
        "ring_capacity) for paged KV.",
    ),
    (
        "unified KV",
        "one KV pool layout for all DSV4 layers (ROCm with "
        "SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton); otherwise the pools are "
        "paged.",
    ),
    (
        "PD",
        "prefill/decode disaggregation: one server computes the prompt (prefill), "
        "another generates tokens (decode), and the KV cache is sent between "
        "them; SGLang checks the SWA geometry only then.",
    ),
    (
        "pair",
        "a PD prefill server and the decode server it sends KV to; swacheck "
        "compares the values they must share (SWA401-SWA415).",
    ),
    (
        "deployment",
        "one SGLang server swacheck checks: a server config, a swacheck "
        "deployment file, or a launch command in a script, Dockerfile, Kubernetes "
        "or Compose file.",
    ),
)


def render() -> str:
    width = max(len(term) for term, _ in GLOSSARY)
    return "".join(f"{term:<{width}}  {text}\n" for term, text in GLOSSARY)
