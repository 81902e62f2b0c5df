"""Drive a released SGLang's own start-up code from config files, on CPU (no GPU, no weights).

Run by conformance/run.py inside the conformance virtualenv; never imported by swacheck, and
it imports nothing from swacheck:

    python sglang_driver.py PLATFORM SGLANG_VERSION JOBS.json [--fresh]

Each job's directory holds ``server.yaml`` (an SGLang ``--config`` file) and the model folders it names
(``config.json`` only). The server's environment is this process's environment (run.py sets
it). One fresh process per case: the platform, the environment and SGLang's lru-cached gates
are process-wide.

Stages, each SGLang's own code (the release's file is named where the harness wires it):

1. ``parse``     ``prepare_server_args(["--config", "server.yaml", ...])``: the real config
                 merger (``server_args_config_parser.py``) and argparse;
2. ``resolve``   ``ServerArgs.resolve_once()`` (0.5.19+: the hook pipeline; older releases
                 resolve inside ``__post_init__``, which step 1 already ran);
3. ``validate``  ``ServerArgs.check_server_args()``;
4. ``model``     ``ModelConfig.from_server_args`` for the target and, with a speculative
                 algorithm, the draft (``is_draft_model=True``, the draft path resolved by
                 SGLang), as ``managers/tp_worker.py`` ``_init_model_config`` does;
5. ``pools``     for a DeepSeek-V4 target: the real request table (``ReqToTokenPool``, or
                 ``DecodeReqToTokenPool`` with the decode extra slots on a PD decode server)
                 sized by the real ``KVCacheConfigurator.resolve_max_num_reqs`` with unbounded
                 memory (so GPU memory never caps max-running-requests; swacheck assumes the
                 same), then the real ``KVCacheConfigurator._build_dsv4_kv_pool`` for the target
                 and the draft (sharing that table), called on a stand-in configurator that
                 carries only what that method reads. Token budgets (swa/c4/c128 sizes) are small
                 constants: they do not enter the compared geometry. The memory profiling of
                 ``configure()`` is not run.
6. ``setup``     with a draft pool: the same SWA index mapping object registered on both pools
                 (as ``SWATokenToKVPoolAllocator`` and the draft worker do), then the real
                 ``setup_state_kv_args(KVArgs(), target, draft)`` from
                 ``disaggregation/utils.py``, whose DSV4 block is the target/draft check. The
                 tuples it compares are read from its frame. Production runs it only under PD:
                 without PD its refusal is recorded (``without_pd``) but the server starts.

Writes ``sglang-result.json`` (and SGLang's log, ``sglang.log``) into each case directory:
``{"stage", "outcome": "ok"|"error",
"exception", "message", "resolved": {...}, "target": [...], "draft": [...], "unified": ...}``.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import inspect
import io
import json
import os
import sys
import traceback
import types

STAGES = ("parse", "resolve", "validate", "model", "pools", "setup")


# --- stubs for modules whose import-time code only matters on a GPU --------------------------


class _Meta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in _STUB_ATTRS:
            return _STUB_ATTRS[name]
        return _Meta(name, (_Dummy,), {})

    def __getitem__(cls, key):
        return cls

    def __or__(cls, other):
        return cls

    def __ror__(cls, other):
        return cls


class _Dummy(metaclass=_Meta):
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        if args and callable(args[0]) and not kwargs and len(args) == 1:
            return args[0]  # used as a decorator
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Dummy()


class _Constexpr:
    """``triton.language.constexpr``: module-level constants read ``.value``."""

    def __init__(self, value=None):
        self.value = value

    def __index__(self):
        return int(self.value)

    def __int__(self):
        return int(self.value)


class _Driver:
    """``triton.runtime.driver``: ``active.get_current_target().backend`` names the platform
    (import-time ``is_hip()`` probes of some kernels read it)."""

    backend = "cuda"

    @property
    def active(self):
        return self

    def get_current_target(self):
        return types.SimpleNamespace(
            backend=self.backend,
            arch=90 if self.backend == "cuda" else "gfx950",
            warp_size=32 if self.backend == "cuda" else 64,
        )


_DRIVER = _Driver()
_STUB_ATTRS = {"constexpr": _Constexpr, "driver": _DRIVER}
_STUB_VERSIONS = {"torchvision": "0.29.0", "triton": "3.5.0"}


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        # transformers asks for a version of what it finds (torchvision: image processors)
        module.__version__ = _STUB_VERSIONS.get(spec.name, "0.0.0")

        def __getattr__(name):
            if name.startswith("__"):
                raise AttributeError(name)
            if name in _STUB_ATTRS:
                return _STUB_ATTRS[name]
            return _Meta(name, (_Dummy,), {})

        module.__getattr__ = __getattr__
        return module

    def exec_module(self, module):
        pass


class _StubFinder(importlib.abc.MetaPathFinder):
    def __init__(self, roots):
        self.roots = set(roots)

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in self.roots:
            return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)
        return None


def _rebind(module, name, new):
    """Replace ``module.name`` everywhere it was imported by name."""
    old = getattr(module, name, None)
    if old is None:
        return
    for mod in list(sys.modules.values()):
        try:
            if mod is not None and getattr(mod, name, None) is old:
                setattr(mod, name, new)
        except Exception:
            pass


def _version_tuple(v):
    out = []
    for part in v.split(".")[:3]:
        digits = "".join(c for c in part if c.isdigit())
        out.append(int(digits or 0))
    return tuple(out)


# The GPUs a case may name (``Case.gpu``; the platform's first one by default): what the device
# queries answer. An SM100 GPU also makes torch report CUDA (``torch.version.cuda``,
# ``torch.cuda.is_available``): ``select_dsv4_kv_layout`` asks both before the capability.
GPUS = {
    "cuda": {
        "H200": {"name": "NVIDIA H200", "memory_gib": 141, "capability": (9, 0), "sms": 132},
        "H100": {
            "name": "NVIDIA H100 80GB HBM3",
            "memory_gib": 80,
            "capability": (9, 0),
            "sms": 132,
        },
        "B200": {"name": "NVIDIA B200", "memory_gib": 180, "capability": (10, 0), "sms": 148},
    },
    "rocm": {
        "MI355X": {
            "name": "AMD Instinct MI355X",
            "memory_gib": 288,
            "capability": (9, 5),
            "gfx": "gfx950",
        },
        "MI300X": {
            "name": "AMD Instinct MI300X",
            "memory_gib": 192,
            "capability": (9, 4),
            "gfx": "gfx942",
        },
    },
}


CAPABILITY = (9, 0)  # the installed GPU's compute capability


def gpu_facts(platform: str, gpu: str | None) -> dict:
    table = GPUS[platform]
    return table.get(gpu or "", next(iter(table.values())))


def install_platform(platform: str, sglang_version: str, gpu: str | None = None):
    """Make this CPU process look like one GPU of ``platform`` to SGLang's start-up code."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch

    facts = gpu_facts(platform, gpu)
    cap = facts["capability"]

    class _Props:
        name = facts["name"]
        total_memory = facts["memory_gib"] * (1 << 30)
        major, minor = cap
        multi_processor_count = facts.get("sms", 256)
        gcnArchName = facts.get("gfx", "")

    global CAPABILITY
    CAPABILITY = cap
    if platform == "rocm":
        torch.version.hip = "6.4.0"  # before any sglang import: is_hip() and _is_hip read it
    elif cap[0] == 10:
        torch.version.cuda = "12.9"  # torch.cuda.is_available: only when the pools are built
    torch.cuda.get_device_properties = lambda *a, **k: _Props()
    torch.cuda.get_device_capability = lambda *a, **k: cap

    def _no_compile(*args, **kwargs):  # torch.compile needs triton; nothing here runs a kernel
        if args and callable(args[0]):
            return args[0]
        return lambda fn: fn

    torch.compile = _no_compile
    import importlib.util

    _DRIVER.backend = "hip" if platform == "rocm" else "cuda"
    stubs = ["triton", "torchvision"]
    if importlib.util.find_spec("tvm_ffi") is None:
        stubs.append("tvm_ffi")
    # GPU kernel packages, never installed here. Later releases probe for them (find_spec), and
    # a stub would answer "installed": stub only where the release imports them unconditionally
    # (ROCm's module-level imports under HIP; 0.5.17's layers/quantization/fp8_utils.py under CUDA).
    gpu_packages = ["sgl_kernel", "aiter"] if platform == "rocm" else []
    if platform == "cuda" and _version_tuple(sglang_version) < (0, 5, 18):
        gpu_packages += ["sgl_kernel", "flashinfer"]
    for name in gpu_packages:
        if importlib.util.find_spec(name) is None:
            stubs.append(name)
    if importlib.util.find_spec("xgrammar") is None:
        stubs.append("xgrammar")
    sys.meta_path.insert(0, _StubFinder(stubs))

    try:
        import sglang.srt.platforms as plat
    except ImportError:
        plat = None
    if plat is not None and hasattr(plat, "_current_platform"):
        old = plat.current_platform
        if platform == "rocm":
            from sglang.srt.platforms.rocm import RocmSRTPlatform as cls
        else:
            from sglang.srt.platforms.cuda import CudaSRTPlatform as cls
        plat._current_platform = cls()
        for mod in list(sys.modules.values()):
            try:
                if getattr(mod, "current_platform", None) is old:
                    mod.current_platform = plat._current_platform
            except Exception:
                pass
    import sglang.srt.utils.common as common

    device = "cuda"
    _rebind(
        common,
        "get_device",
        lambda device_id=None: device if device_id is None else f"{device}:{device_id}",
    )
    for name in (
        "get_device_memory_capacity",
        "get_nvgpu_memory_capacity",
        "get_amdgpu_memory_capacity",
    ):
        _rebind(common, name, lambda *a, **k: None)
    capability = cap
    sm = cap[0] * 10 + cap[1] if platform == "cuda" else 0
    _rebind(common, "get_device_capability", lambda *a, **k: capability)
    _rebind(common, "get_device_sm", lambda *a, **k: sm)
    if platform == "cuda":
        for name, majors in (
            ("is_sm100_supported", (10,)),
            ("is_blackwell_supported", (10, 11, 12)),
            ("is_blackwell", (10, 11, 12)),
            ("is_sm90_supported", (9,)),
        ):
            with contextlib.suppress(Exception):
                _rebind(common, name, (lambda v: lambda *a, **k: v)(cap[0] in majors))
    try:
        from sglang.srt.runtime_context import override_platform
    except ImportError:
        override_platform = None
    if override_platform is not None:
        facts = (
            {
                "is_hip": True,
                "is_cuda": False,
                "device_sm": 0,
                "device_capability": cap,
            }
            if platform == "rocm"
            else {
                "is_cuda": True,
                "is_hip": False,
                "device_sm": sm,
                "device_capability": cap,
                "is_sm90": cap[0] == 9,
                "is_sm100": cap[0] == 10,
                "is_hopper_with_cuda_12_3": cap[0] == 9,
            }
        )
        try:
            override_platform(**facts).install()
        except ValueError:  # an older release knows fewer facts: keep the ones it knows
            for key, value in facts.items():
                with contextlib.suppress(ValueError):
                    override_platform(**{key: value}).install()
    else:  # 0.5.17 and older: no platform override; answer the device queries directly
        for name, value in (
            ("is_cuda", platform == "cuda"),
            ("is_hip", platform == "rocm"),
            ("is_cuda_alike", True),
            ("is_sm90_supported", platform == "cuda"),
            ("get_device_sm", 90 if platform == "cuda" else 0),
        ):
            _rebind(common, name, (lambda v: lambda *a, **k: v)(value))


# --- reading SGLang's resolved values -------------------------------------------------------


def resolved(sa):
    try:
        from sglang.srt.arg_groups.model_override_base import resolved_view

        view = resolved_view(sa)
    except Exception:
        view = sa

    def get(name, default=None):
        for obj in (view, sa):
            try:
                return getattr(obj, name)
            except Exception:
                continue
        return default

    return get


RESOLVED_KEYS = (
    "page_size",
    "max_running_requests",
    "speculative_algorithm",
    "speculative_num_steps",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
    "disaggregation_mode",
    "disaggregation_decode_extra_slots",
    "disaggregation_decode_allocation_policy",
    "disaggregation_transfer_backend",
    "enable_kv_cache_sharding",
    "pp_size",
    "kv_cache_dtype",
    "tp_size",
    "dp_size",
    "attn_dp_size",
    "speculative_draft_model_path",
    "model_path",
)


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return str(v)


def printed(sa) -> dict:
    """What the release prints of these arguments, for swacheck's server-output inputs: the
    start-up log line (``srt/entrypoints/engine.py``: ``server_args={...}`` of the redacted
    ``resolved_dict()`` from 0.5.19 on, ``server_args=ServerArgs(...)`` before) and the
    ``/server_info`` payload's arguments (the resolved dict, or ``dataclasses.asdict`` before)."""
    import dataclasses
    import json as _json

    out: dict = {}
    try:
        if hasattr(sa, "resolved_dict"):
            values = sa.resolved_dict()
            try:
                from sglang.srt.sampling.watermarking.core import redact_watermark_secrets

                values = redact_watermark_secrets(values)
            except Exception:
                pass
            out["log_line"] = f"server_args={values}"
        else:
            out["log_line"] = f"server_args={sa!r}"
            values = dataclasses.asdict(sa)
        info = {k: _jsonable_deep(v) for k, v in values.items()}
        info["launch_command"] = getattr(sa, "launch_command", None)
        info["version"] = _sglang_version()
        out["server_info"] = _json.loads(_json.dumps(info, default=str))
    except Exception as exc:  # the record cannot be printed: say so, the case still runs
        out["error"] = f"{type(exc).__name__}: {exc}"
    return out


def _jsonable_deep(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, dict):
        return {str(k): _jsonable_deep(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set)):
        return [_jsonable_deep(x) for x in v]
    return str(v)


def _sglang_version() -> str:
    try:
        from sglang.version import __version__

        return __version__
    except Exception:
        return ""


# --- the stages -----------------------------------------------------------------------------


class Outcome(Exception):
    def __init__(self, stage, exc):
        self.stage, self.exc = stage, exc


def run_case(case_dir: str, platform: str, sglang_version: str, extra_argv: list[str]) -> dict:
    """Run the stages for one case; ``install_platform`` has already run in this process."""
    result: dict = {
        "stage": None,
        "outcome": "ok",
        "exception": None,
        "message": None,
        "resolved": {},
        "target": None,
        "draft": None,
        "unified": None,
        "pd": False,
    }
    os.chdir(case_dir)
    stage = "import"
    try:
        from sglang.srt.server_args import prepare_server_args

        stage = "parse"
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                sa = prepare_server_args(["--config", "server.yaml", *extra_argv])
        except SystemExit as exc:  # argparse: "sglang serve: error: argument --x: ..."
            lines = [ln for ln in err.getvalue().splitlines() if "error:" in ln]
            raise Outcome(
                "parse", SystemExitError(lines[-1] if lines else f"exit {exc.code}")
            ) from None
        stage = "resolve"
        if hasattr(sa, "resolve_once"):
            sa.resolve_once()
        get = resolved(sa)
        result["resolved"] = {k: _jsonable(get(k)) for k in RESOLVED_KEYS}
        result["printed"] = printed(sa)
        stage = "validate"
        sa.check_server_args()
        stage = "model"
        models = build_model_configs(sa, get)
        result["resolved"]["target_window"] = getattr(models[0], "window_size", None)
        if models[1] is not None:
            result["resolved"]["draft_window"] = getattr(models[1], "window_size", None)
        arch = (getattr(models[0].hf_config, "architectures", None) or [""])[0]
        if "DeepseekV4" not in arch:
            result["note"] = f"not a DeepSeek-V4 target ({arch}); pools not built"
            return result
        stage = "pools"
        pools = build_pools(sa, get, models, platform, result)
        mode = get("disaggregation_mode")
        result["pd"] = mode in ("prefill", "decode")
        if result["pd"]:
            _handshake(result, get, pools)
        if pools[1] is None:
            return result
        stage = "setup"
        from sglang.srt.disaggregation.base.conn import KVArgs
        from sglang.srt.disaggregation.utils import setup_state_kv_args

        # Production calls setup_state_kv_args only under PD (the prefill bootstrap queue and the
        # decode prealloc queue). It is called here always, to read the tuples the release really
        # compares; without PD its refusal is recorded as "without_pd", not as a start-up failure.
        tracer = _trace_geometry()
        try:
            with tracer:
                setup_state_kv_args(KVArgs(), pools[0], pools[1])
        except Exception as exc:
            if result["pd"]:
                raise
            result["without_pd"] = f"{type(exc).__name__}: {exc}"
        finally:
            if "target_geometry" in tracer.seen:
                result["target"] = _jsonable(tracer.seen["target_geometry"])
                result["draft"] = _jsonable(tracer.seen.get("draft_geometry"))
                result["compared"] = result["pd"]
        return result
    except Outcome as out:
        return _fail(result, out.stage, out.exc)
    except BaseException as exc:
        return _fail(result, _stage_of(stage, exc), exc)


class HarnessLimit(Exception):
    """A configuration this harness does not model: reported as not compared."""


class SystemExitError(Exception):
    """argparse printed an error and exited."""


def _stage_of(stage, exc):
    """prepare_server_args of releases that resolve in __post_init__ also runs the hooks."""
    if stage != "parse":
        return stage
    files = [fr.filename for fr in traceback.extract_tb(exc.__traceback__)]
    if any("config_parser" in f or f.endswith("argparse.py") for f in files[-3:]):
        return "parse"
    if any("arg_groups" in f or "__post_init__" in f for f in files) or any(
        fr.name in ("__post_init__", "run_resolution_pipeline")
        for fr in traceback.extract_tb(exc.__traceback__)
    ):
        return "resolve"
    return "parse"


def _harness_fault(exc) -> bool:
    """A failure of this harness's stand-ins (stubbed GPU modules), not an SGLang refusal."""
    if isinstance(
        exc, ImportError
    ):  # a package this environment lacks, not a refusal of the config
        return True
    if (
        isinstance(exc, HarnessLimit)
        or "_Dummy" in str(exc)
        or "_Meta" in str(exc)
        or "_Constexpr" in str(exc)
    ):
        return True
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and frames[-1].filename == __file__ and not isinstance(exc, Outcome)


def _fail(result, stage, exc):
    result.update(
        stage=stage,
        outcome="harness-error" if _harness_fault(exc) else "error",
        exception=type(exc).__name__,
        message=str(exc).strip().splitlines()[0] if str(exc).strip() else "",
    )
    tb = traceback.extract_tb(exc.__traceback__)
    sgl = [fr for fr in tb if "/sglang/" in fr.filename]
    if sgl:
        fr = sgl[-1]
        result["where"] = f"{fr.filename.split('/site-packages/')[-1]}:{fr.lineno}"
    return result


def build_model_configs(sa, get):
    from sglang.srt.configs.model_config import ModelConfig

    def make(path, is_draft, context_length=None):
        sig = inspect.signature(ModelConfig.from_server_args).parameters
        kwargs = {}
        if "model_path" in sig:
            kwargs["model_path"] = path
        if "is_draft_model" in sig:
            kwargs["is_draft_model"] = is_draft
        if context_length is not None and "context_length" in sig:
            kwargs["context_length"] = context_length
        return ModelConfig.from_server_args(sa, **kwargs)

    target = make(get("model_path"), False)
    draft = None
    algo = get("speculative_algorithm")
    if algo not in (None, "", "NONE") and str(algo).upper() not in ("NGRAM",):
        # the draft workers build the draft's ModelConfig with the target's context length
        # (speculative/eagle_worker_v2.py 0.5.23:229, 0.5.22:209; draft_worker_common.py:100)
        draft = make(
            get("speculative_draft_model_path") or get("model_path"),
            True,
            getattr(target, "context_len", None),
        )
    return target, draft


def _publish(sa):
    try:
        from sglang.srt import runtime_context as rc
    except ImportError:
        rc = None
    if rc is not None and hasattr(rc, "publish"):
        params = inspect.signature(rc.publish).parameters
        kwargs = {"role": "scheduler"} if "role" in params else {}
        if "ranks" in params:
            kwargs["ranks"] = rc.SpawnRanks(world_rank=0, gpu_id=0)
        rc.publish(sa, **kwargs)
        return
    from sglang.srt import server_args as sa_mod  # older: a process-global server_args

    for name in ("set_global_server_args_for_scheduler", "set_global_server_args"):
        if hasattr(sa_mod, name):
            getattr(sa_mod, name)(sa)
            return


def _attn_dp_size(get):
    """The attention-DP width SGLang published for this process (0.5.21 and older derive it
    from enable_dp_attention: attn_dp_size = dp_size)."""
    try:
        from sglang.srt.runtime_context import get_parallel

        value = get_parallel().attn_dp_size
        if isinstance(value, int) and value > 0:
            return value
    except Exception:
        pass
    if get("attn_dp_size"):
        return max(1, int(get("attn_dp_size")))
    if get("enable_dp_attention"):
        return max(1, int(get("dp_size") or 1))
    return 1


def _ring_serves_draft_tokens(target_cfg, get):
    """SGLang's own ``DSV4PoolConfigurator._assert_ring_serves_draft_tokens`` (0.5.22+), which
    ``DSV4PoolConfigurator.__init__`` runs for a speculative server with the largest draft-token
    count (adaptive tiers included, ``max_speculative_num_draft_tokens``), on a stand-in holding
    what it reads: the compress-state ring per ratio (SGLang's
    ``resolve_compress_state_ring_size``) and the layers of each ratio (PP rank 0: all)."""
    try:
        from sglang.srt.mem_cache.deepseek_v4_memory_pool import resolve_compress_state_ring_size
        from sglang.srt.model_executor.pool_configurator import DSV4PoolConfigurator
        from sglang.srt.runtime_context import max_speculative_num_draft_tokens
    except ImportError:
        return
    check = getattr(DSV4PoolConfigurator, "_assert_ring_serves_draft_tokens", None)
    if check is None or get("speculative_algorithm") in (None, "", "NONE"):
        return
    ratios = list(getattr(target_cfg.hf_config, "compress_ratios", None) or [])
    counts = {r: ratios.count(r) for r in (4, 128)}
    stand_in = types.SimpleNamespace(
        num_layers=lambda ratio: counts.get(ratio, 0),
        ring_sizes={r: resolve_compress_state_ring_size(r) for r in counts if counts[r]},
    )
    check(stand_in, max_speculative_num_draft_tokens() or 0)


def _unified_fp8_pd(get):
    """SGLang's own ``check_dsv4_unified_fp8_pd_supported`` (0.5.22+), which
    ``DSV4PoolConfigurator.__init__`` runs before anything is sized (pool_configurator.py
    0.5.23:1187, 0.5.22:1160): the unified FP8 pool refuses PD with PP or HiSparse."""
    try:
        from sglang.srt.model_executor.pool_configurator import (
            check_dsv4_unified_fp8_pd_supported,
        )
    except ImportError:
        return
    try:  # where DSV4PoolConfigurator.__init__ takes it from: 0.5.23, then 0.5.22
        from sglang.srt.layers.attention.dsv4.unified_kv_gate import is_unified_kv_fp8
    except ImportError:
        from sglang.kernels.ops.attention.dsv4.unified_kv_kernels.env_gate import (
            is_unified_kv_fp8,
        )
    check_dsv4_unified_fp8_pd_supported(
        unified_fp8=is_unified_kv_fp8(),
        disaggregation_mode=get("disaggregation_mode") or "null",
        pp_size=int(get("pp_size") or 1),
        enable_hisparse=bool(get("enable_hisparse")),
    )


def build_pools(sa, get, models, platform, result):
    import torch

    if platform == "cuda" and CAPABILITY[0] == 10:
        # select_dsv4_kv_layout asks torch.cuda.is_available() before the capability; answered
        # only now, so that no import took a CUDA-only path (sgl_kernel) on the way here
        torch.cuda.is_available = lambda: True

    _publish(sa)
    from sglang.srt.mem_cache import kv_cache_configurator as kvc
    from sglang.srt.mem_cache.memory_pool import ReqToTokenPool

    target_cfg, draft_cfg = models
    _unified_fp8_pd(get)
    _ring_serves_draft_tokens(target_cfg, get)
    attn_dp = _attn_dp_size(get)
    result["resolved"]["attn_dp_size"] = attn_dp
    big = 1 << 40  # token capacity: memory never caps max_running_requests
    ns = types.SimpleNamespace(
        model_config=target_cfg,
        attn_dp_size=attn_dp,
        mambaish_config=None,
        ps=types.SimpleNamespace(attn_dp_size=attn_dp),
    )
    capacity = big
    if get("max_total_tokens") is not None:
        # --max-total-tokens caps the capacity (SGLang's own _apply_token_constraints; its PP
        # all-reduce is a MIN over equal values here) and the DSV4 configurator floors it to whole
        # pages (_compute_dsv4_sizes: full_token // page_size * page_size)
        if int(get("pp_size") or 1) == 1:
            capacity = kvc.KVCacheConfigurator._apply_token_constraints(ns, big)
        else:
            capacity = min(big, int(get("max_total_tokens")))
        pool_page = int(get("page_size") or 256)
        capacity = capacity // pool_page * pool_page
        result["resolved"]["token_capacity"] = capacity
    per_worker = kvc.KVCacheConfigurator.resolve_max_num_reqs(ns, capacity)
    result["resolved"]["max_num_reqs_per_worker"] = per_worker
    context_len = 4096
    mode = get("disaggregation_mode")
    if mode == "decode":
        from sglang.srt.disaggregation.decode import DecodeReqToTokenPool

        extra = int(get("disaggregation_decode_extra_slots") or 0)
        params = inspect.signature(DecodeReqToTokenPool.__init__).parameters
        kwargs = {
            "size": per_worker,
            "max_context_len": context_len,
            "device": "cpu",
            "enable_memory_saver": False,
            "pre_alloc_size": extra,
        }
        req = DecodeReqToTokenPool(**{k: v for k, v in kwargs.items() if k in params})
    else:
        params = inspect.signature(ReqToTokenPool.__init__).parameters
        kwargs = {
            "size": per_worker,
            "max_context_len": context_len,
            "device": "cpu",
            "enable_memory_saver": False,
        }
        req = ReqToTokenPool(**{k: v for k, v in kwargs.items() if k in params})
    result["resolved"]["num_req_slots"] = int(req.req_to_token.shape[0])

    kv_dtype_name = str(get("kv_cache_dtype") or "auto")
    kv_dtype = {
        "fp8_e4m3": torch.float8_e4m3fn,
        "bfloat16": torch.bfloat16,
        "bf16": torch.bfloat16,
        "auto": torch.bfloat16,
    }.get(kv_dtype_name, torch.bfloat16)
    try:
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        spec_algo = SpeculativeAlgorithm.from_string(get("speculative_algorithm"))
    except Exception:
        spec_algo = None
    page = int(get("page_size") or 256)

    def build(cfg, is_draft):
        n_layers = 1 if is_draft else int(cfg.num_hidden_layers)
        stand_in = types.SimpleNamespace(is_draft_worker=is_draft, pool_page_size=page)
        stand_in.__dict__.update(
            model_config=cfg,
            page_size=page,
            kv_cache_dtype=kv_dtype,
            kv_cache_dtype_str=kv_dtype_name,
            device="cpu",
            spec_algorithm=spec_algo,
            server_args=sa,
            dtype=torch.bfloat16,
            layer_info=types.SimpleNamespace(
                num_effective_layers=n_layers, start_layer=0, end_layer=n_layers
            ),
            start_layer=0,
            end_layer=n_layers,
            num_effective_layers=n_layers,
        )
        # the configurator's own page arithmetic: a draft worker under DCP > 1 scales its pool page
        # (loc_space_scale); older releases without the property use the schedule's page size
        if isinstance(getattr(kvc.KVCacheConfigurator, "loc_space_scale", None), property):
            stand_in.loc_space_scale = kvc.KVCacheConfigurator.loc_space_scale.fget(stand_in)
            stand_in.pool_page_size = kvc.KVCacheConfigurator.pool_page_size.fget(stand_in)
        result["resolved"]["draft_pool_page_size" if is_draft else "target_pool_page_size"] = (
            stand_in.pool_page_size
        )
        # the compress-state dtypes as SGLang's own _derive_pool_sizes asks them (it reads
        # SGLANG_DSV4_COMPRESS_STATE_DTYPE and refuses other values); older releases: float32
        dtypes = getattr(kvc, "_get_dsv4_compress_state_dtypes", None)
        c4_dtype, c128_dtype = dtypes() if dtypes is not None else (torch.float32, torch.float32)
        budget = {
            "max_running_requests": per_worker,
            "max_num_reqs": per_worker,
            "full_max_total_num_tokens": 8192,
            "swa_max_total_num_tokens": 4096,
            "c4_max_total_num_tokens": 2048,
            "c128_max_total_num_tokens": 256,
            "c4_state_pool_size": per_worker + 1,
            "c128_state_pool_size": per_worker + 1,
            "c4_state_dtype": c4_dtype,
            "c128_state_dtype": c128_dtype,
            "req_to_token_pool": req,
        }
        fn = kvc.KVCacheConfigurator._build_dsv4_kv_pool
        params = inspect.signature(fn).parameters
        return fn(stand_in, **{k: v for k, v in budget.items() if k in params})

    target = build(target_cfg, False)
    result["target"] = _geometry(target, False)
    result["unified"] = bool(getattr(target, "_unified_kv", False))
    for name in ("_unified_kv_fp8", "_unified_fp8", "unified_fp8"):
        if hasattr(target, name):
            result["resolved"]["target_unified_fp8"] = bool(getattr(target, name))
            break
    draft = None
    if draft_cfg is not None:
        draft_arch = (getattr(draft_cfg.hf_config, "architectures", None) or [""])[0]
        if "DeepseekV4" not in draft_arch:
            # production builds this draft's pool with another class (_init_pools dispatches on the
            # worker's own model config); this harness only builds DSV4 pools
            raise HarnessLimit(
                f"the draft is not a DeepSeek-V4 checkpoint ({draft_arch}); its pool is not modelled"
            )
        draft = build(draft_cfg, True)
        result["draft"] = _geometry(draft, True)
    mapping = torch.zeros(8, dtype=torch.int64)
    for pool in (target, draft):
        if pool is not None and hasattr(pool, "register_mapping"):
            pool.register_mapping(mapping)
    return target, draft


def _geometry(pool, is_draft):
    """The tuple setup_state_kv_args compares, read from the pool's own attributes (the same
    expressions as the DSV4 block of ``disaggregation/utils.py``; 0.5.23 adds a third paged
    element). Under PD the tuples SGLang really compared replace these (see _trace_geometry)."""
    if getattr(pool, "_unified_kv", False):
        return [pool.unified_swa_window, pool.unified_swa_ring_size, pool.unified_swa_pages]
    out = [pool.page_size, pool.sliding_window]
    if hasattr(pool, "swa_req_ring_size"):  # 0.5.23
        if is_draft:
            out.append(pool.swa_req_ring_size)
        else:
            rw = getattr(pool, "request_window", None)
            out.append(rw.capacity if rw is not None else None)
    return out


class _trace_geometry:
    """Record ``target_geometry``/``draft_geometry`` as setup_state_kv_args computes them."""

    def __init__(self):
        self.seen = {}

    def _local(self, frame, event, arg):
        for name in ("target_geometry", "draft_geometry"):
            if name in frame.f_locals:
                self.seen[name] = frame.f_locals[name]
        return self._local

    def _global(self, frame, event, arg):
        if event == "call" and frame.f_code.co_name == "setup_state_kv_args":
            return self._local
        return None

    def __enter__(self):
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)


def _handshake(result, get, pools):
    """What this PD server publishes to its peer, computed by SGLang's own code: the state
    components ``setup_state_kv_args`` registers for transfer (types, item lengths, layer ids),
    the page size the prefill/decode queues put in ``KVArgs`` (the pool's), the resolved KV dtype
    string, ``get_pd_kv_layout`` and ``get_dsv41_spec_layout`` (where the release has them), and
    the parallel sizes ``runtime_context`` published. Stored as ``result["handshake"]``; a failure
    here is recorded (``handshake_error``), never a start-up failure of the server."""
    from sglang.srt.disaggregation import utils as du
    from sglang.srt.disaggregation.base.conn import KVArgs

    try:
        kv_args = KVArgs()
        kv_args.page_size = int(pools[0].page_size)
        kv_args.kv_cache_dtype_str = str(get("kv_cache_dtype") or "auto")
        with contextlib.suppress(Exception):  # the draft check is the setup stage's business
            du.setup_state_kv_args(kv_args, pools[0], pools[1])
        layout = du.get_pd_kv_layout(pools[0]) if hasattr(du, "get_pd_kv_layout") else None
        kv_args.kv_layout = layout
        spec_layout = None
        if hasattr(du, "get_dsv41_spec_layout"):
            with contextlib.suppress(Exception):
                spec_layout = du.get_dsv41_spec_layout(kv_args)
        tp = int(get("tp_size") or 1)
        attn_dp = int(result["resolved"].get("attn_dp_size") or 1)
        sizes = {"attn_tp_size": max(1, tp // attn_dp), "attn_cp_size": 1, "pp_size": 1}
        try:
            from sglang.srt.runtime_context import get_parallel

            par = get_parallel()
            for key in sizes:
                if isinstance(getattr(par, key, None), int):
                    sizes[key] = getattr(par, key)
        except Exception:
            sizes["pp_size"] = int(get("pp_size") or 1)
        types_ = list(getattr(kv_args, "state_types", None) or [])
        result["handshake"] = {
            "page_size": kv_args.page_size,
            "num_layers": int(getattr(pools[0], "layer_num", 0) or 0) or None,
            "kv_cache_dtype": kv_args.kv_cache_dtype_str,
            "kv_layout": layout,
            "dsv41_spec_layout": _jsonable(spec_layout) if spec_layout is not None else None,
            **sizes,
            "dp_size": int(get("dp_size") or 1),
            "state_types": [getattr(t, "name", str(t)) for t in types_],
            "state_item_lens": [
                [int(x) for x in lens] for lens in getattr(kv_args, "state_item_lens", None) or []
            ],
            "state_ptr_counts": [len(p) for p in getattr(kv_args, "state_data_ptrs", None) or []],
            "state_layer_ids": [
                [int(x) for x in ids] for ids in getattr(kv_args, "state_layer_ids", None) or []
            ],
            "mla_compression_ratios": _jsonable(getattr(kv_args, "mla_compression_ratios", None)),
            "speculative_algorithm": _jsonable(get("speculative_algorithm")),
            "decode_allocation_policy": str(
                get("disaggregation_decode_allocation_policy") or "early"
            ),
            "enable_kv_cache_sharding": bool(get("enable_kv_cache_sharding")),
            "transfer_backend": str(get("disaggregation_transfer_backend") or "mooncake"),
        }
    except Exception as exc:
        result["handshake_error"] = f"{type(exc).__name__}: {exc}"


class _FakeResponse:
    """The bootstrap server's answer to the decode's ``GET /route``: the prefill's registration."""

    status_code = 200

    def __init__(self, payload):
        self._payload = payload
        self.text = json.dumps(payload)

    def json(self):
        return dict(self._payload)


class _Stop(BaseException):
    """Ends a bootstrap loop the pair step runs (not an Exception: the loops catch those)."""


class _OneMessageSocket:
    """A prefill's ZMQ server socket that receives one message, then ends the loop."""

    def __init__(self, owner, message):
        self.owner, self.message, self.calls = owner, message, 0

    def recv_multipart(self, *args, **kwargs):
        self.calls += 1
        if self.calls == 1:
            return list(self.message)
        self.owner._stopped = True
        raise _Stop()


class _InlineThread:
    """``threading.Thread`` for the bootstrap loop: run in ``start()``, its exception kept."""

    raised: list = []

    def __init__(self, target=None, args=(), kwargs=None, daemon=None, name=None):
        self.target, self.args, self.kwargs = target, args, kwargs or {}

    def start(self):
        try:
            self.target(*self.args, **self.kwargs)
        except _Stop:
            pass
        except Exception as exc:  # what kills the real thread
            _InlineThread.raised.append(exc)

    def join(self, *a, **k):
        pass

    def is_alive(self):
        return False


def _backend_class(name):
    from sglang.srt.disaggregation.utils import KVClassType, TransferBackend, get_kv_class

    return get_kv_class(TransferBackend(name), KVClassType.MANAGER)


def _decode_registration(backend: str, side: dict) -> list:
    """The registration message a decode on ``backend`` sends each prefill rank, built by that
    backend's own ``build_receiver_registration_message`` on a manager made without __init__."""
    cls = _backend_class(backend)
    m = object.__new__(cls)
    n_state = len(side["state_ptr_counts"])
    kv_args = types.SimpleNamespace(
        kv_data_ptrs=[4096, 8192],
        kv_data_lens=[1 << 20, 1 << 20],
        kv_item_lens=[656, 656],
        kv_data_mem_kinds=["VRAM", "VRAM"],
        kv_layer_ids=[0, 1],
        aux_data_ptrs=[12288],
        state_data_ptrs=[[100 + i] * c for i, c in enumerate(side["state_ptr_counts"])],
        state_item_lens=side["state_item_lens"],
        state_data_lens=[[1 << 16] * c for c in side["state_ptr_counts"]],
        state_layer_ids=side["state_layer_ids"] or [[] for _ in range(n_state)],
        state_dim_per_tensor=[],
        gpu_id=0,
        engine_rank=0,
    )
    m.__dict__.update(
        kv_args=kv_args,
        local_ip="127.0.0.1",
        rank_port=17000,
        attn_tp_size=side["attn_tp_size"],
        dcp_size=1,
        dcp_rank=0,
        enable_staging=False,
        _staging_ctx=None,
        kv_buffer_tensors=None,
        engine=types.SimpleNamespace(get_session_id=lambda: "127.0.0.1:17001"),
        agent=types.SimpleNamespace(name="decode-agent", get_agent_metadata=lambda: b"agent"),
        engine_desc=types.SimpleNamespace(pack=lambda: b"engine"),
        kv_mem_descs=[],
        aux_mem_descs=[],
        state_mem_descs=[],
    )
    return m.build_receiver_registration_message()


def _prefill_reads(backend: str, message: list) -> tuple[str, str] | None:
    """Run the bootstrap loop of a prefill on ``backend`` (its own code: Mooncake's
    ``start_prefill_thread``, NIXL's and Mori's ``_start_bootstrap_thread``) on one message with a
    stand-in socket; (exception, message) when the loop dies or drops it, else None."""
    import logging

    cls = _backend_class(backend)
    module = sys.modules[cls.__module__]
    m = object.__new__(cls)
    sock = _OneMessageSocket(m, message)
    m.__dict__.update(
        server_socket=sock,
        deferred_bootstrap=None,
        server_args=types.SimpleNamespace(enable_pd_role_switch=False),
        _stopped=False,
        _worker_threads=[],
        _staging_ctx=None,
        enable_staging=False,
        transfer_infos={},
        request_status={},
        req_to_decode_prefix_len={},
        enable_deferred_decode_kv_release=False,
        kv_args=types.SimpleNamespace(engine_rank=0, kv_item_lens=[656], num_draft_entries=0),
    )
    warned = []

    class _Catch(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                warned.append(record.getMessage())

    logger = getattr(module, "logger", logging.getLogger(module.__name__))
    handler = _Catch()
    logger.addHandler(handler)
    saved_disable = logging.root.manager.disable
    logging.disable(logging.NOTSET)
    real_threading = module.threading
    module.threading = types.SimpleNamespace(
        Thread=_InlineThread, Lock=real_threading.Lock, Event=real_threading.Event
    )
    _InlineThread.raised = []
    starter = getattr(m, "start_prefill_thread", None) if backend == "mooncake" else None
    try:
        (starter or m._start_bootstrap_thread)()
    finally:
        module.threading = real_threading
        logger.removeHandler(handler)
        logging.disable(saved_disable)
    if _InlineThread.raised:
        exc = _InlineThread.raised[0]
        return type(exc).__name__, " ".join(str(exc).split())
    malformed = [w for w in warned if "malformed" in w.lower()]
    if malformed:
        return "dropped", malformed[0]
    return None


def pair_case(prefill: dict, decode: dict) -> dict:
    """Drive SGLang's two PD comparisons on what each server published (``_handshake``), with a
    fake transport: the decode's ``try_ensure_parallel_info`` (``disaggregation/common/conn.py``;
    its first request) reads the prefill's registration from a fake ``requests.get``; then the
    prefill's ``_validate_peer_state_layout`` (``disaggregation/mooncake/conn.py``, 0.5.22+; when
    the decode registers) checks the decode's state layout. Both run on manager objects made
    without ``__init__`` (no sockets, no threads) carrying the values those methods read."""
    import dataclasses

    from sglang.srt.disaggregation.base.conn import StateType
    from sglang.srt.disaggregation.common import conn as common_conn
    from sglang.srt.disaggregation.mooncake import conn as mc_conn

    out = {"outcome": "ok", "when": None, "side": None, "exception": None, "message": None}
    p, d = prefill["handshake"], decode["handshake"]
    fields = {f.name for f in dataclasses.fields(common_conn.PrefillServerInfo)}
    payload = {
        "attn_tp_size": p["attn_tp_size"],
        "attn_cp_size": p["attn_cp_size"],
        "dp_size": p["dp_size"],
        "pp_size": p["pp_size"],
        "page_size": p["page_size"],
        "kv_cache_dtype": p["kv_cache_dtype"],
        "follow_bootstrap_room": True,
        "kv_layout": p["kv_layout"],
        "dsv41_spec_layout": p["dsv41_spec_layout"],
        "decode_allocation_policy": p["decode_allocation_policy"],
        "enable_kv_cache_sharding": p["enable_kv_cache_sharding"],
    }
    payload = {k: v for k, v in payload.items() if k in fields}

    def manager(side, **extra):
        m = object.__new__(mc_conn.MooncakeKVManager)
        m.__dict__.update(
            prefill_info_table={},
            is_mla_backend=True,
            is_hybrid_mla_backend=False,
            attn_tp_size=side["attn_tp_size"],
            attn_tp_rank=0,
            attn_cp_size=side["attn_cp_size"],
            attn_cp_rank=0,
            pp_size=side["pp_size"],
            pp_rank=0,
            dcp_size=1,
            state_tp_size=side["attn_tp_size"],
            enable_all_cp_ranks_for_transfer=False,
            kv_cache_dtype_str=side["kv_cache_dtype"],
            kv_layout=side["kv_layout"],
            dsv41_spec_layout=side["dsv41_spec_layout"],
            **extra,
        )
        return m

    def kv_args(side):
        return types.SimpleNamespace(
            page_size=side["page_size"],
            engine_rank=0,
            state_types=[StateType[n] for n in side["state_types"]],
            state_item_lens=side["state_item_lens"],
            state_data_ptrs=[[1 + i] * n for i, n in enumerate(side["state_ptr_counts"])],
            state_layer_ids=side["state_layer_ids"],
            mla_compression_ratios=side["mla_compression_ratios"],
            num_draft_entries=0,
            system_dp_rank=0,
            # the driver builds PP rank 0's pool: every target layer (DSV4-Flash has 43)
            prefill_start_layer=0,
            prefill_end_layer=side.get("num_layers") or 43,
        )

    backends = (p.get("transfer_backend") or "mooncake", d.get("transfer_backend") or "mooncake")
    if backends[1] == "fake" and backends[0] != "fake":
        # FakeKVReceiver (disaggregation/fake/conn.py) is no CommonKVReceiver: it neither asks the
        # bootstrap server nor registers with the prefill, whose copy of each request waits
        return dict(
            out,
            outcome="error",
            when="every request",
            side="prefill",
            exception="no registration",
            message="the fake decode receiver never registers with the prefill (FakeKVReceiver)",
        )
    dec = manager(d, kv_args=kv_args(d))
    real_get = common_conn.requests.get
    common_conn.requests.get = lambda *a, **k: _FakeResponse(payload)
    try:
        dec.try_ensure_parallel_info("127.0.0.1:8998")
    except Exception as exc:
        return dict(
            out,
            outcome="error",
            when="first request",
            side="decode",
            exception=type(exc).__name__,
            message=" ".join(str(exc).split()) if str(exc).strip() else "",
        )
    finally:
        common_conn.requests.get = real_get
    if backends[0] != backends[1]:
        # the decode registers with the prefill's rank port in its own backend's framing; the
        # prefill's bootstrap loop reads it (nothing before compares the backends)
        read = _prefill_reads(backends[0], _decode_registration(backends[1], d))
        if read is not None:
            return dict(
                out,
                outcome="error",
                when="every request",
                side="prefill",
                exception=read[0],
                message=read[1],
            )
    validate = getattr(mc_conn.MooncakeKVManager, "_validate_peer_state_layout", None)
    if validate is None:
        out["note"] = "this release's Mooncake compares no state layout at registration"
        return out
    pre = manager(p, kv_args=kv_args(p))
    registration = types.SimpleNamespace(
        dst_state_data_ptrs=[[100 + i] * n for i, n in enumerate(d["state_ptr_counts"])],
        dst_state_item_lens=d["state_item_lens"],
        dst_state_layer_ids=d["state_layer_ids"],
        dst_attn_tp_size=d["attn_tp_size"],
        mooncake_session_id="decode-session",
    )
    saved = {n: getattr(mc_conn, n) for n in ("get_spec", "get_memory") if hasattr(mc_conn, n)}
    spec = types.SimpleNamespace(speculative_algorithm=p["speculative_algorithm"])
    memory = types.SimpleNamespace(enable_unified_memory=False)
    mc_conn.get_spec, mc_conn.get_memory = (lambda: spec), (lambda: memory)
    try:
        checked, mismatch = validate(pre, registration)
    finally:
        for name, fn in saved.items():
            setattr(mc_conn, name, fn)
    if mismatch is not None:
        return dict(
            out,
            outcome="error",
            when="every request",
            side="prefill",
            exception="rejected",
            message=f"Rejecting state transfers to decode session: {mismatch}",
        )
    if not checked:  # a component the pre-check could not judge: the send path decides
        out["note"] = "the registration check deferred a component to the send path"
    return out


def pair_main(argv):
    """``sglang_driver.py --pairs PLATFORM VERSION PAIRS.json``: PAIRS.json lists
    ``{"prefill": DIR, "decode": DIR, "out": FILE}``; each DIR holds a single-server result."""
    platform, version, jobs = argv[0].partition(":")[0], argv[1], json.load(open(argv[2]))
    import importlib.util

    if (
        importlib.util.find_spec("mori") is None
    ):  # the Mori transfer library: import-time names only
        sys.meta_path.insert(0, _StubFinder(["mori"]))
    install_platform(platform, version)
    import logging

    logging.disable(logging.CRITICAL)
    for job in jobs:
        sides = {}
        for role in ("prefill", "decode"):
            path = os.path.join(job[role], "sglang-result.json")
            sides[role] = json.load(open(path)) if os.path.exists(path) else None
        if any(v is None for v in sides.values()):
            res = {"outcome": "harness-error", "message": "a side produced no result"}
        elif any(v["outcome"] != "ok" for v in sides.values()):
            role = next(r for r in ("prefill", "decode") if sides[r]["outcome"] != "ok")
            res = {
                "outcome": "harness-error"
                if sides[role]["outcome"] == "harness-error"
                else "error",
                "when": "start-up",
                "side": role,
                "stage": sides[role]["stage"],
                "exception": sides[role]["exception"],
                "message": sides[role]["message"],
            }
        elif any("handshake" not in v for v in sides.values()):
            res = {
                "outcome": "harness-error",
                "message": "; ".join(
                    str(v.get("handshake_error", "no handshake")) for v in sides.values()
                ),
            }
        else:
            try:
                res = pair_case(sides["prefill"], sides["decode"])
            except Exception as exc:
                res = {
                    "outcome": "harness-error",
                    "exception": type(exc).__name__,
                    "message": f"{exc} ({traceback.extract_tb(exc.__traceback__)[-1]})",
                }
        with open(job["out"], "w") as fh:
            json.dump(res, fh)


def _child(job, platform, version, fresh, gpu=None):
    """Run one case with its environment and write its result next to it."""
    out_path = os.path.join(job["dir"], "sglang-result.json")
    log = os.open(
        os.path.join(job["dir"], "sglang.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644
    )
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.environ.update(job.get("env") or {})
    if fresh:
        install_platform(platform, version, gpu)
    result = run_case(job["dir"], platform, version, job.get("argv") or [])
    with open(out_path, "w") as fh:
        json.dump(result, fh)


def main(argv):
    """``sglang_driver.py PLATFORM VERSION JOBS.json [--fresh]``

    JOBS.json is a list of ``{"dir", "env", "argv"}``. By default the parent imports torch,
    transformers and ``sglang.srt.server_args`` once with the platform installed, then forks one
    child per case, which sets the case's environment before anything else of SGLang is
    imported or any cached gate is read. ``--fresh`` runs each case in a new interpreter
    instead (slower; the reference mode the fork mode is checked against).
    """
    spec, version, jobs_path = argv[1], argv[2], argv[3]
    platform, _, gpu = spec.partition(":")  # "cuda" or "cuda:B200" (GPUS)
    fresh = "--fresh" in argv[4:]
    jobs = json.load(open(jobs_path))
    timeout = float(os.environ.get("SWACHECK_CONFORMANCE_TIMEOUT", "600"))
    if fresh:
        import subprocess

        for job in jobs:
            single = os.path.join(job["dir"], "job.json")
            with open(single, "w") as fh:
                json.dump(job, fh)
            try:
                subprocess.run(
                    [sys.executable, os.path.abspath(__file__), "--one", spec, version, single],
                    timeout=timeout,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                pass
        return
    install_platform(platform, version, gpu or None)
    import signal
    import time

    import sglang.srt.server_args  # noqa: F401  the expensive import, shared by every child

    for job in jobs:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                _child(job, platform, version, False, gpu or None)
            finally:
                os._exit(0)
        deadline = time.monotonic() + timeout
        while True:
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.05)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--pairs":
        pair_main(sys.argv[2:])
    elif len(sys.argv) > 1 and sys.argv[1] == "--one":
        _platform, _, _gpu = sys.argv[2].partition(":")
        _child(json.load(open(sys.argv[4])), _platform, sys.argv[3], True, _gpu or None)
    else:
        main(sys.argv)
