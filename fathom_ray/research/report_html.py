"""A report as one self-contained HTML page, safe to open and to print to PDF.

The Markdown is rendered with raw HTML off (a page's ``<script>`` stays text), images off (nothing
is loaded from a source), and only http(s) and in-page links kept; every link opens with
``rel="noopener noreferrer"``. The page carries a Content-Security-Policy that loads nothing and
runs nothing, and print styles for Chromium's PDF.

Citations are links: a report's ``[n]`` goes to the n-th entry of its section's numbered sources
(``#source-n``), and the fact ids after it ("(F2, F3)") to the facts' evidence (``#fact-F2``), which
the page lists: ``render_html`` in an Evidence section of its own, the web page in its facts. Only
the markers the report itself wrote become links: brackets from a source's text are escaped in the
Markdown (``safe_inline``), so they reach the renderer as escapes, not as markers.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from fathom_ray.models import Fact

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem;
       color: #1b1b1b; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
a { color: #0645ad; word-break: break-all; }
li:target { background: #fff3c4; }
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
    md.core.ruler.before("text_join", "citation_links", _citation_links)
    return md


_MARKERS = re.compile(r"((?:\[\d{1,4}\])+)(?: \((F\d{1,6}(?:, F\d{1,6})*)\))?")
_NUMBER = re.compile(r"\[(\d{1,4})\]")
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_-]")


def anchor(kind: str, key: str, prefix: str = "") -> str:
    """An element id the page's citation links point at: ``source-3``, ``fact-F2``."""
    return f"{prefix}{kind}-{_UNSAFE_ID.sub('-', key)}"


def _citation_links(state: StateCore) -> None:
    """Anchors on the section's numbered sources, and links on the markers that cite them."""
    prefix = str(state.env.get("prefix", ""))
    facts: Collection[str] | None = state.env.get("facts")
    sources = _anchor_sources(state.tokens, prefix)
    for token in state.tokens:
        if token.type == "inline" and token.children:
            token.children = [t for child in token.children for t in _linked(child, sources, facts, prefix)]


def _anchor_sources(tokens: list[Token], prefix: str) -> set[int]:
    """The numbers of the list under a "Sources" heading, each item given its anchor."""
    numbers: set[int] = set()
    under = False
    for n, token in enumerate(tokens):
        if token.type == "heading_open":
            under = tokens[n + 1].content.strip() == "Sources"
        elif under and token.type == "ordered_list_open":
            ordinal = int(str(token.attrGet("start") or 1))
            for item in tokens[n + 1 :]:
                if item.type == "ordered_list_close" and item.level == token.level:
                    break
                if item.type == "list_item_open" and item.level == token.level + 1:
                    item.attrSet("id", anchor("source", str(ordinal), prefix))
                    numbers.add(ordinal)
                    ordinal += 1
            under = False
    return numbers


def _linked(
    token: Token, sources: Collection[int], facts: Collection[str] | None, prefix: str
) -> list[Token]:
    """A text token with its citation markers made links; other tokens as they are."""
    if token.type != "text" or "[" not in token.content:
        return [token]
    out: list[Token] = []
    at = 0
    for match in _MARKERS.finditer(token.content):
        out.append(_text(token.content[at : match.start()]))
        for number in _NUMBER.finditer(match.group(1)):
            n = int(number.group(1))
            target = anchor("source", str(n), prefix) if n in sources else None
            out += _link(f"[{n}]", target, f"source {n}")
        if match.group(2):
            ids = match.group(2).split(", ")
            out.append(_text(" ("))
            for k, fact_id in enumerate(ids):
                known = facts is None or fact_id in facts
                out += _link(fact_id, anchor("fact", fact_id) if known else None, f"evidence of {fact_id}")
                out.append(_text(", " if k + 1 < len(ids) else ")"))
        at = match.end()
    out.append(_text(token.content[at:]))
    return [t for t in out if t.type != "text" or t.content]


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _link(text: str, target: str | None, label: str) -> list[Token]:
    """A link to ``#target`` (an anchor on this page), or the text alone when there is none."""
    if target is None:
        return [_text(text)]
    opening = Token("link_open", "a", 1)
    opening.attrs = {"href": f"#{target}", "class": "cite", "aria-label": label}
    return [opening, _text(text), Token("link_close", "a", -1)]


def _allowed_link(url: str) -> bool:
    return url.lower().startswith(("http://", "https://", "#"))


def render_fragment(markdown: str) -> str:
    """The Markdown as an HTML fragment under the same rules, for a page to show as it is; its fact
    ids link to ``#fact-ID``, which the page holding the fragment provides."""
    return str(_markdown().render(markdown, {"prefix": ""}))


def render_html(title: str, sections: Sequence[str], facts: Sequence[Fact] = ()) -> str:
    """One page: each Markdown section rendered in its own ``<section>`` (a page of its own in print),
    then the facts' evidence, each fact an anchor its ids in the sections link to."""
    md = _markdown()
    known = {f.id for f in facts}
    body = "\n".join(
        f"<section>\n{md.render(section, {'prefix': f's{n}-', 'facts': known})}</section>"
        for n, section in enumerate(sections, start=1)
    )
    body += evidence_section(facts)
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def session_page(goal: str, markdown: str, facts: Sequence[Fact]) -> str:
    """A session's report on one page, its facts' evidence after it: what report.pdf prints."""
    return render_html(goal, [markdown], facts)


def evidence_section(facts: Sequence[Fact]) -> str:
    """The facts as HTML, each with its claim, its quoted evidence and its source (linked when it is
    http(s)); everything a source wrote escaped."""
    if not facts:
        return ""
    items = "\n".join(
        f'<li id="{anchor("fact", f.id)}"><strong>{html.escape(f.id)}</strong> {html.escape(f.claim)}'
        f"<blockquote>{html.escape(f.evidence)}</blockquote>{_source_link(f.source_url)}</li>"
        for f in facts
    )
    return f'\n<section>\n<h2 id="evidence">Evidence</h2>\n<ol>\n{items}\n</ol>\n</section>'


def _source_link(url: str) -> str:
    if not _allowed_link(url) or url.startswith("#"):
        return f"<span>{html.escape(url)}</span>"
    quoted = html.escape(url, quote=True)
    return f'<a href="{quoted}" rel="noopener noreferrer">{quoted}</a>'
