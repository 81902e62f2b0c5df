"""swacheck: predict SGLang DeepSeek-V4 target/draft SWA geometry mismatches from config files."""

__version__ = "0.1.0"
