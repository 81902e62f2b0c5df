"""The GPUs swacheck knows: architecture, compute capability / gfx target, memory, FP8 and FP4.

One table, one row per GPU, each fact with where it comes from. The rules that depend on the
GPU (SWA501 MoE runner, SWA503 KV cache dtype, SWA504 memory) read it through :func:`lookup`;
a name that is not in the table is *unknown*, and those rules then say what they would need
instead of guessing.

What SGLang tests is the compute capability (``get_platform().is_sm90`` / ``is_sm100`` /
``is_sm120`` compare the major version, ``srt/platforms``; ``_compute_enable_deep_gemm`` in
``srt/layers/deep_gemm_wrapper/configurer.py`` wants SM90 or later) and, on ROCm, the gfx target
(``is_gfx95_supported``). Memory is what SGLang sizes pools from: the device's total memory as
the driver reports it (``nvidia-smi --query-gpu=memory.total``, ``torch.cuda.mem_get_info``),
which is a little less than the marketing figure; where swacheck does not know the reported
number it keeps the datasheet figure and says so (``memory_source``).

Sources:
- compute capabilities: NVIDIA, "CUDA GPUs - Compute Capability",
  https://developer.nvidia.com/cuda-gpus ;
- gfx targets and memory of AMD Instinct GPUs: AMD, "GPU hardware specifications",
  https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html ;
- FP8 (e4m3) needs SM89 or later on NVIDIA (Ada, Hopper, Blackwell): Triton's ``fp8e4nv`` type
  raises "type fp8e4nv not supported in this architecture" below SM89; CDNA3 (gfx942) has FP8
  in the FNUZ variant, CDNA4 (gfx950) the OCP one; hardware FP4 (MXFP4/NVFP4 tensor cores)
  is Blackwell (SM100/SM103/SM120) and CDNA4 (gfx950) only: the datasheets below.
"""

from __future__ import annotations

import re

from ..model.recordtype import record

_MIB = 1024 * 1024
_GB = (
    1024**3
)  # datasheet "GB" of HBM taken as GiB: an upper bound, so a memory verdict never errs against the user

_CUDA_GPUS = "https://developer.nvidia.com/cuda-gpus"
_AMD_SPECS = "https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html"


@record(unsafe_hash=True)
class Gpu:
    """A GPU model: vendor, SGLang platform, architecture, compute capability or gfx target, memory."""

    name: str  # canonical: "H100", "MI300X"
    vendor: str  # "nvidia" | "amd"
    platform: str  # SGLang platform: "cuda" | "rocm"
    architecture: str  # "Hopper", "CDNA3", ...
    sm: int | None  # compute capability x 10 (90 = 9.0); None on AMD
    gfx: str | None  # AMD gfx target
    memory_bytes: int  # per GPU
    memory_source: str  # how the memory figure was obtained
    fp8: bool  # hardware FP8 (e4m3) support
    fp4: bool  # hardware FP4 (MXFP4/NVFP4) support
    source: str  # where the architecture facts come from
    aliases: tuple[str, ...] = ()

    @property
    def sm_major(self) -> int | None:
        return None if self.sm is None else self.sm // 10

    @property
    def arch_text(self) -> str:
        return (
            f"{self.architecture}, SM{self.sm}"
            if self.sm is not None
            else f"{self.architecture}, {self.gfx}"
        )

    def memory_gib(self) -> float:
        return self.memory_bytes / (1 << 30)


def _nv(name, arch, sm, mem, mem_source, fp8, fp4, aliases=()) -> Gpu:
    return Gpu(
        name,
        "nvidia",
        "cuda",
        arch,
        sm,
        None,
        mem,
        mem_source,
        fp8,
        fp4,
        f"{_CUDA_GPUS} (compute capability {sm // 10}.{sm % 10})",
        aliases,
    )


def _amd(name, arch, gfx, mem, mem_source, fp8, fp4, aliases=()) -> Gpu:
    return Gpu(
        name,
        "amd",
        "rocm",
        arch,
        None,
        gfx,
        mem,
        mem_source,
        fp8,
        fp4,
        f"{_AMD_SPECS} ({gfx})",
        aliases,
    )


_SMI = "nvidia-smi memory.total"
_NOMINAL = "datasheet capacity taken as GiB, an upper bound (the driver reports a little less)"

GPUS: tuple[Gpu, ...] = (
    _nv(
        "A100",
        "Ampere",
        80,
        81920 * _MIB,
        f"{_SMI}, 80 GB model",
        False,
        False,
        ("A100-80GB", "A100-SXM4-80GB", "A100-PCIE-80GB", "A100 80GB"),
    ),
    _nv(
        "A100-40GB",
        "Ampere",
        80,
        40960 * _MIB,
        f"{_SMI}, 40 GB model",
        False,
        False,
        ("A100-SXM4-40GB", "A100-PCIE-40GB", "A100 40GB"),
    ),
    _nv(
        "A800",
        "Ampere",
        80,
        81920 * _MIB,
        f"{_SMI}, 80 GB model",
        False,
        False,
        ("A800-80GB", "A800-SXM4-80GB"),
    ),
    _nv("A10", "Ampere", 86, 23028 * _MIB, _SMI, False, False),
    _nv("L40S", "Ada Lovelace", 89, 46068 * _MIB, _SMI, True, False),
    # L40: the same 48 GB GDDR6 board as the L40S (NVIDIA L40 datasheet), so the same reported size
    _nv("L40", "Ada Lovelace", 89, 46068 * _MIB, f"{_SMI}, 48 GB GDDR6 as the L40S", True, False),
    _nv("L20", "Ada Lovelace", 89, 46068 * _MIB, _SMI, True, False),
    _nv(
        "RTX 4090",
        "Ada Lovelace",
        89,
        24564 * _MIB,
        _SMI,
        True,
        False,
        ("GeForce RTX 4090", "RTX4090", "4090"),
    ),
    # the 48 GB RTX 4090 (a board with twice the GDDR6X, sold in China): AD102, SM89 as the 24 GB
    _nv(
        "RTX 4090 48GB",
        "Ada Lovelace",
        89,
        48 * _GB,
        _NOMINAL + ", 48 GB GDDR6X (modified board; no NVIDIA datasheet)",
        True,
        False,
        ("GeForce RTX 4090 48GB", "RTX4090-48G", "RTX 4090 48G", "4090 48GB", "4090-48G"),
    ),
    _nv(
        "H100",
        "Hopper",
        90,
        81559 * _MIB,
        f"{_SMI}, 80 GB SXM/PCIe",
        True,
        False,
        ("H100-80GB", "H100-SXM5-80GB", "H100 80GB HBM3", "H100-PCIE", "H100 SXM"),
    ),
    # H100 NVL / H800 NVL: 94 GB HBM3 per GPU, not the 80 GB of the SXM/PCIe parts (NVIDIA H100
    # datasheet, "H100 NVL: 94GB"; H800 NVL product brief, 94 GB)
    _nv(
        "H100 NVL",
        "Hopper",
        90,
        94 * _GB,
        _NOMINAL + ", 94 GB HBM3",
        True,
        False,
        ("H100-NVL", "H100NVL", "H100 NVL 94GB"),
    ),
    _nv(
        "H800 NVL",
        "Hopper",
        90,
        94 * _GB,
        _NOMINAL + ", 94 GB HBM3",
        True,
        False,
        ("H800-NVL", "H800NVL"),
    ),
    _nv(
        "H800",
        "Hopper",
        90,
        81559 * _MIB,
        f"{_SMI}, 80 GB",
        True,
        False,
        ("H800-80GB", "H800 80GB HBM3"),
    ),
    _nv(
        "H200",
        "Hopper",
        90,
        143771 * _MIB,
        f"{_SMI}, 141 GB",
        True,
        False,
        ("H200-141GB", "H200 SXM", "H200-NVL", "H200 NVL"),
    ),
    _nv("H20", "Hopper", 90, 97871 * _MIB, f"{_SMI}, 96 GB model", True, False, ("H20-96GB",)),
    # H20-3e: the H20 with 141 GB HBM3e (the same stack as the H200), SM90
    _nv(
        "H20-3e",
        "Hopper",
        90,
        141 * _GB,
        _NOMINAL + ", 141 GB HBM3e",
        True,
        False,
        ("H20 3e", "H20-141GB", "H20 141GB", "H20-141G", "H20E"),
    ),
    _nv("GH200", "Hopper", 90, 97871 * _MIB, f"{_SMI}, 96 GB HBM3 model", True, False),
    _nv(
        "B200",
        "Blackwell",
        100,
        183359 * _MIB,
        f"{_SMI}, 180 GB usable",
        True,
        True,
        ("B200-180GB", "HGX B200"),
    ),
    _nv("GB200", "Blackwell", 100, 186 * _GB, _NOMINAL + ", 186 GB per GPU", True, True),
    _nv(
        "B300",
        "Blackwell Ultra",
        103,
        288 * _GB,
        _NOMINAL + ", 288 GB",
        True,
        True,
        ("B300-288GB", "HGX B300"),
    ),
    _nv("GB300", "Blackwell Ultra", 103, 288 * _GB, _NOMINAL + ", 288 GB per GPU", True, True),
    _nv(
        "RTX PRO 6000",
        "Blackwell",
        120,
        97887 * _MIB,
        f"{_SMI}, 96 GB",
        True,
        True,
        (
            "RTX PRO 6000 Blackwell",
            "RTX-PRO-6000",
            "RTX PRO 6000 Blackwell Server Edition",
            "RTX PRO 6000 Blackwell Workstation Edition",
            "RTX6000 PRO",
            "RTX 6000 PRO",
        ),
    ),
    # RTX PRO 5000 Blackwell: GB202, SM120, 48 GB GDDR7 (a 72 GB model too); NVIDIA RTX PRO 5000
    # Blackwell datasheet
    _nv(
        "RTX PRO 5000",
        "Blackwell",
        120,
        48 * _GB,
        _NOMINAL + ", 48 GB GDDR7",
        True,
        True,
        ("RTX PRO 5000 Blackwell", "RTX-PRO-5000", "RTX 5000 PRO", "RTX5000 PRO"),
    ),
    _nv(
        "RTX PRO 5000 72GB",
        "Blackwell",
        120,
        72 * _GB,
        _NOMINAL + ", 72 GB GDDR7",
        True,
        True,
        ("RTX PRO 5000 Blackwell 72GB", "RTX-PRO-5000-72GB"),
    ),
    # GB10 (DGX Spark): Blackwell SM121 with 128 GB LPDDR5X shared with the CPU (NVIDIA DGX Spark
    # datasheet); compute capability 12.1 (developer.nvidia.com/cuda-gpus)
    _nv(
        "GB10",
        "Blackwell",
        121,
        128 * _GB,
        _NOMINAL + ", 128 GB unified LPDDR5X shared with the CPU",
        True,
        True,
        ("DGX Spark", "DGX-Spark", "NVIDIA GB10"),
    ),
    _nv(
        "RTX 5090",
        "Blackwell",
        120,
        32607 * _MIB,
        _SMI,
        True,
        True,
        ("GeForce RTX 5090", "RTX5090", "5090"),
    ),
    _amd(
        "MI300X",
        "CDNA3",
        "gfx942",
        192 * _GB,
        _NOMINAL + ", 192 GB HBM3",
        True,
        False,
        ("Instinct MI300X",),
    ),
    _amd(
        "MI308X",
        "CDNA3",
        "gfx942",
        192 * _GB,
        _NOMINAL + ", 192 GB HBM3",
        True,
        False,
        ("Instinct MI308X",),
    ),
    _amd(
        "MI325X",
        "CDNA3",
        "gfx942",
        256 * _GB,
        _NOMINAL + ", 256 GB HBM3E",
        True,
        False,
        ("Instinct MI325X",),
    ),
    _amd(
        "MI350X",
        "CDNA4",
        "gfx950",
        288 * _GB,
        _NOMINAL + ", 288 GB HBM3E",
        True,
        True,
        ("Instinct MI350X",),
    ),
    _amd(
        "MI355X",
        "CDNA4",
        "gfx950",
        288 * _GB,
        _NOMINAL + ", 288 GB HBM3E",
        True,
        True,
        ("Instinct MI355X", "MI35X", "mi35x"),
    ),
)


def _key(text: str) -> str:
    """Case, spaces, dashes and vendor prefixes do not matter: "NVIDIA-H100-80GB-HBM3" ~ "h100 80gb hbm3"."""
    text = text.lower().strip()
    for _ in range(3):  # "nvidia-tesla-a100", "AMD_Instinct_MI300X_OAM"
        text = re.sub(r"^(nvidia|amd|tesla|geforce|instinct)[\s_-]+", "", text)
    return re.sub(r"[\s_-]+", "", text)


_INDEX: dict[str, Gpu] = {}
for _gpu in GPUS:
    for _name in (_gpu.name, *_gpu.aliases):
        _INDEX.setdefault(_key(_name), _gpu)

# Suffixes the Kubernetes GPU feature discovery label ``nvidia.com/gpu.product`` and vendors add
# after the model name: "-SXM5-80GB", "-80GB-HBM3", "-PCIe", "-MIG-1g.10gb".
_SUFFIX = re.compile(r"(sxm\d*|pcie|nvl|oam|hbm\d*e?|\d+gb|server|edition|workstation)$")


def lookup(name: str) -> Gpu | None:
    """The GPU a name means, or ``None`` when swacheck does not know it (never a guess)."""
    key = _key(name)
    if not key or len(key) > 100 or "mig" in key:
        return None  # a MIG slice has a fraction of the memory: not a GPU of the table
    if key in _INDEX:
        return _INDEX[key]
    # drop trailing form-factor / memory suffixes one at a time: "h10080gbhbm3" -> "h100"
    for _ in range(4):
        shorter = _SUFFIX.sub("", key)
        if shorter == key or not shorter:
            break
        key = shorter
        if key in _INDEX:
            return _INDEX[key]
    return None


def known_names() -> list[str]:
    return [g.name for g in GPUS]


def closest(name: str, n: int = 3) -> list[str]:
    """The known GPUs whose names (or aliases) are nearest to ``name``, nearest first."""
    import difflib

    key = _key(name)[:100]
    by_key = {k: g.name for k, g in _INDEX.items()}
    out: list[str] = []
    for k in difflib.get_close_matches(key, list(by_key), n=n * 3, cutoff=0.5):
        if by_key[k] not in out:
            out.append(by_key[k])
    if not out:  # nothing alike: the GPUs that share its leading letters ("mi3..." -> MI300X ...)
        out = [g.name for g in GPUS if _key(g.name)[:2] == key[:2]]
    return out[:n]
