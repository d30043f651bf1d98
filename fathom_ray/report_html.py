"""A report as one self-contained HTML page, safe to open and to print to PDF.

The Markdown is rendered with raw HTML off (a page's ``<script>`` stays text), images off (nothing
is loaded from a source), and only http(s) and in-page links kept; every link opens with
``rel="noopener noreferrer"``. The page carries a Content-Security-Policy that loads nothing and
runs nothing, and print styles for Chromium's PDF.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem;
       color: #1b1b1b; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
a { color: #0645ad; word-break: break-all; }
blockquote { margin: .3rem 0 .8rem 1rem; padding-left: .8rem; border-left: 3px solid #ccc; color: #444; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: .2rem .5rem; }
section + section { border-top: 1px solid #ddd; margin-top: 2rem; }
@media print { body { margin: 0; max-width: none; } section { break-before: page; } }
"""


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
    md.validateLink = _allowed_link  # type: ignore[method-assign]

    def link_open(renderer: Any, tokens: Sequence[Any], idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("rel", "noopener noreferrer")
        return str(renderer.renderToken(tokens, idx, options, env))

    md.add_render_rule("link_open", link_open)
    return md


def _allowed_link(url: str) -> bool:
    return url.lower().startswith(("http://", "https://", "#"))


def render_fragment(markdown: str) -> str:
    """The Markdown as an HTML fragment under the same rules, for a page to show as it is."""
    return str(_markdown().render(markdown))


def render_html(title: str, sections: Sequence[str]) -> str:
    """One page: each Markdown section rendered in its own ``<section>`` (a page of its own in print)."""
    md = _markdown()
    body = "\n".join(f"<section>\n{md.render(section)}</section>" for section in sections)
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
