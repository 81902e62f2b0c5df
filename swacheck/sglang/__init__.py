"""SGLang knowledge: server-argument resolution, model configs, geometry formulas, versions."""
