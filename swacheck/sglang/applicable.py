"""Whether a launch can involve a DeepSeek-V4 target/draft pool or PD pair at all.

swacheck's verdicts are about DSV4 launches. A repository also launches Llama, Qwen, Kimi ...
servers, usually without their ``config.json`` on the CI runner; those must not fail the run.
When a launch's target ``config.json`` cannot be found, it is an input error only when the
launch could be DSV4:

- the user asked for that file (``--model-config`` for it, a deployment file's
  ``target.model_config``);
- the model id names DeepSeek-V4 (``deepseek-ai/DeepSeek-V4-Flash``, ``/models/dsv4-pro``);
- the path exists next to the deployment (a folder without ``config.json``, a file);
- DSV4-only flags or environment are used (``--dsv4-*``, ``SGLANG_DSV4_*``,
  ``SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton``).

Otherwise the launch is *not applicable*, without its ``config.json``:

- no speculative decoding and no PD: SGLang builds no draft pool and there is no PD partner,
  so no DSV4 target/draft or prefill/decode comparison can fail;
- the model id names another family (``Llama``, ``Qwen``, ``Kimi``, ``DeepSeek-R1`` ...);
- an id that says nothing either way (``/models/ckpt``): not checked, with a note (SWA307)
  saying how to check it (``--model-config ID=PATH``).

With a ``config.json`` found, SGLang's own test decides (``architectures[0]``).
"""

from __future__ import annotations

import os
import re

from ..model.deployment import Deployment

_DSV4 = re.compile(r"deepseek[-_ ]?v4|dsv4|(^|[/_-])v4[-_](flash|pro)\b", re.IGNORECASE)
# Families that are not DeepSeek-V4 (their architectures differ: SGLang's DSV4 hooks never run).
_OTHER = re.compile(
    r"llama|qwen|qwq|mistral|mixtral|ministral|gemma|phi-?\d|kimi|moonlight|glm|internlm|intern-?vl|baichuan|"
    r"falcon|gpt-oss|gpt2|minimax|deepseek[-_ ]?(v2|v3|r1|coder|llm|vl|math|prover|moe)|hunyuan|ernie|step-?\d|"
    r"command-?r|c4ai|olmo|granite|nemotron|mimo|exaone|smollm|starcoder|codellama|llava|bloom|opt-\d|yi-\d|"
    r"seed-?oss|ling-|bailing|grok|dbrx|arctic|jamba|gpt-j|gpt-neox|pythia|stablelm|tinyllama|e5-|bge-|gte-",
    re.IGNORECASE,
)
_DSV4_ENV = ("SGLANG_DSV4_",)


def names_dsv4(model_id: str) -> bool:
    return bool(_DSV4.search(model_id))


def names_other_family(model_id: str) -> str | None:
    """The family an id names when it is not DeepSeek-V4, else None."""
    if names_dsv4(model_id):
        return None
    m = _OTHER.search(model_id)
    return m.group(0) if m else None


def dsv4_only_inputs(dep: Deployment) -> str | None:
    """A flag or variable only a DeepSeek-V4 launch uses, as written."""
    for arg in dep.server.entries:
        if arg.name.startswith("dsv4-"):
            return f"--{arg.name}"
    for name, val in dep.env.items():
        if name.startswith(_DSV4_ENV) and not val.origin.startswith("--env"):
            return name
        if (
            name == "SGLANG_HACK_FLASHMLA_BACKEND"
            and val.value == "unified_kv_triton"
            and not val.origin.startswith("--env")
        ):
            return f"{name}=unified_kv_triton"
    return None


def _on_disk(model_path: str, base_dir: str) -> bool:
    """The path names something that exists (a folder without config.json, a file, a broken link):
    the user keeps the model config next to the deployment, so a missing one is a mistake."""
    if os.path.isabs(model_path):
        return False  # /models/...: a mount on the server, not on this runner
    return any(os.path.lexists(p) for p in (os.path.join(base_dir, model_path), model_path))


def not_applicable(
    dep: Deployment, model_path: str, mapped: bool, speculative: bool, pd: bool
) -> tuple[str, bool] | None:
    """Why a launch whose target ``config.json`` is missing is not checked, and whether that
    deserves a note; None when the missing file is an input error."""
    if (
        mapped
        or dep.target_model is not None
        or dep.target_geometry.values
        or dep.draft_geometry.values
    ):
        return None
    if _on_disk(model_path, dep.server.base_dir):
        return None
    if not speculative and not pd:
        return (
            "not applicable: no speculative decoding and no PD, so no DeepSeek-V4 "
            "target/draft pool or PD pair to compare (its config.json is not needed)",
            False,
        )
    if names_dsv4(model_path) or dsv4_only_inputs(dep):
        return None
    family = names_other_family(model_path)
    if family is not None:
        return (
            f"not applicable: model {model_path!r} names {family}, not DeepSeek-V4 (its config.json is not needed)",
            False,
        )
    return (
        f"config.json for model {model_path!r} not found, and nothing says it is DeepSeek-V4: not checked "
        f"(to check it, point at a local copy with --model-config {model_path}=PATH)",
        True,
    )
