"""Issue 23: the GitHub step summary disarms GitHub's autolinker for text from the inputs.

A pull request names a deployment ``see-www.evil.example-or-mail-admin@evil.example``, puts it
in a folder ``www.evil.example`` and gives a draft path ``https://evil.example/x@evil.example``.
GitHub renders the step summary with cmark-gfm, whose autolink extension makes a link of
``www.``, ``https://`` and an e-mail address in plain text. The installed CLI writes the
summary; cmark-gfm (the library GitHub's renderer is built on, through ``cmarkgfm``) renders
it: no link may form from the inputs, and the rendered text, word joiners aside, is the
text of the inputs.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys

import cmarkgfm
from conftest import EXAMPLES

from swacheck.report import escape

SWACHECK = (
    [shutil.which("swacheck")] if shutil.which("swacheck") else [sys.executable, "-m", "swacheck"]
)
NAME = "see-www.evil.example-or-mail-admin@evil.example"
FOLDER = "www.evil.example"
DRAFT = "https://evil.example/x@evil.example"
WORD_JOINER = "\u2060"


def render(markdown: str) -> str:
    """The summary as GitHub renders it: GitHub-flavoured Markdown with the autolink extension."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown)


def shown_text(rendered: str) -> str:
    """What a reader sees: the HTML's text, entities decoded, the invisible word joiners gone."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered)).replace(WORD_JOINER, "")


def test_the_renderer_used_here_does_autolink():
    """The test would catch a link: the same text unescaped becomes three links."""
    rendered = render(f"{FOLDER} {DRAFT} admin@evil.example")
    assert rendered.count("<a href") == 3, rendered


def test_the_step_summary_forms_no_link_from_an_input(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    folder = repo / FOLDER
    shutil.copytree(EXAMPLES / "models" / "DeepSeek-V4-Flash", folder / "models" / "v4")
    (folder / "d.yaml").write_text(f"swacheck: 1\nname: {NAME}\nserver: s.yaml\n")
    (folder / "s.yaml").write_text(
        "model-path: models/v4\nspeculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
        f"speculative-eagle-topk: 1\nspeculative-draft-model-path: {DRAFT}\npage-size: 64\n"
    )
    summary = tmp_path / "summary.md"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({"GITHUB_STEP_SUMMARY": str(summary), "LC_ALL": "C.UTF-8"})
    run = subprocess.run(
        [*SWACHECK, "--format", "github", "."],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr  # SWA308 and SWA201 warnings
    md = summary.read_text(encoding="utf-8")
    assert WORD_JOINER not in md  # written as an entity: no raw invisible character in the file
    rendered = render(md)
    assert "<a " not in rendered, rendered
    text = shown_text(rendered)
    # the inputs read as written: the name, the folder in the heading, the draft path quoted
    assert f"{FOLDER}/d.yaml · {NAME}" in text
    assert f"config.json for model '{DRAFT}' not found" in text
    # a location in a code span stays exactly as written (a code span never autolinks)
    assert f"<code>{FOLDER}/s.yaml:5:31</code>" in rendered


def test_every_autolink_form_is_disarmed_and_shows_the_same_text():
    for text in (
        "www.example.com",
        "WWW.Example.COM",
        "(www.x.org)",
        "*www.x.org*",
        "_www.x.org_",
        "~www.x.org",
        "http://x.org/a?b=c",
        "https://x.org",
        "HTTPS://x.org",
        "ftp://x.org",
        "a_b.c+d@example.com",
        "mailto:a@b.co",
        "xmpp:a@b.co/r",
        "@octocat",
        "x [www.y.com](https://z.com)",
        "<https://x.org>",
        "| www.x.org | a@b.cc |",
    ):
        rendered = render(escape.markdown(text))
        assert "<a " not in rendered, (text, rendered)
        assert shown_text(rendered).strip() == text, (text, rendered)
        # in a table cell too
        cell = render(f"| h |\n|--|\n| {escape.markdown(text)} |\n")
        assert "<a " not in cell and "<td>" in cell, (text, cell)
