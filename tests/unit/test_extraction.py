from __future__ import annotations

import pytest
import trafilatura

from fathom_ray.swarm.receipts import served_in
from fathom_ray.testweb import faults
from fathom_ray.testweb.faults import MANY_LINKS, PDF_TEXT, pdf
from fathom_ray.web.extraction import (
    MAX_LINKS,
    extract_main_text,
    extract_pdf,
    extract_visible_text,
    served_text,
    tag_shape,
)

ARTICLE = """<!doctype html><html lang="en"><head><title>WAL in SQLite | Example News</title>
<meta property="article:published_time" content="2010-07-21T09:00:00Z">
<meta name="author" content="D. Richard Hipp">
<meta property="og:site_name" content="Example News">
<base href="http://news.example/articles/">
</head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article>
<h1>Write-ahead logging arrives in SQLite</h1>
<p>SQLite version 3.7.0 added a new journal mode called write-ahead logging, or WAL for short.
With WAL, readers do not block writers and a writer does not block readers, so reading and writing
can proceed concurrently. The change was described as the biggest since version 3.0.</p>
<p>Details are in the <a href="wal.html#intro">WAL documentation</a> and in the
<a href="HTTP://Docs.Example:80/./release/3.7.0.html?b=2&amp;a=1">release notes for 3.7.0</a>.</p>
<p>Most applications will see faster writes. Checkpoints move pages from the WAL file back
into the database, either automatically or when the application asks for one.</p>
</article>
<footer>Copyright Example News. <a href="/privacy">Privacy</a></footer>
</body></html>"""


def test_article_text_title_links_and_metadata() -> None:
    page = extract_main_text(ARTICLE, "http://news.example/articles/wal-arrives")
    assert page.method.startswith("trafilatura")
    assert "readers do not block writers" in page.text
    assert "Copyright Example News" not in page.text
    assert page.title == "WAL in SQLite | Example News"
    by_url = {link.url: link for link in page.links}
    assert "http://news.example/articles/wal.html" in by_url
    notes = by_url["http://docs.example/release/3.7.0.html?a=1&b=2"]
    assert notes.text == "release notes for 3.7.0"
    assert "Details are in the" in notes.context
    assert "http://news.example/about" in by_url
    assert page.metadata.date == "2010-07-21T09:00:00Z"
    assert page.metadata.author == "D. Richard Hipp"
    assert page.metadata.site_name == "Example News"
    assert page.metadata.language == "en"


def test_json_ld_metadata() -> None:
    html = """<html><head><script type="application/ld+json">
    {"@context": "https://schema.org", "@type": "NewsArticle", "datePublished": "2022-10-24",
     "author": [{"@type": "Person", "name": "Pablo Galindo"}, {"name": "Łukasz Langa"}]}
    </script></head><body><p>Python 3.11 was released.</p></body></html>"""
    metadata = extract_main_text(html, "http://a.example/").metadata
    assert metadata.date == "2022-10-24"
    assert metadata.author == "Pablo Galindo, Łukasz Langa"


def test_selectolax_takes_over_when_trafilatura_finds_nothing() -> None:
    html = "<html><body><main><nav>menu</nav><script>x()</script></main></body></html>"
    page = extract_main_text(html, "http://a.example/empty")
    assert page.method == "selectolax"
    assert page.text == ""


def test_selectolax_takes_over_when_trafilatura_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> str:
        raise ValueError("lxml could not build a tree")

    monkeypatch.setattr(trafilatura, "extract", broken)
    html = "<html><body><main><nav>menu</nav><p>Kept text.</p><script>x()</script></main></body></html>"
    page = extract_main_text(html, "http://a.example/tiny")
    assert page.method == "selectolax"
    assert page.text == "Kept text."


def test_garbage_never_raises() -> None:
    for html in ("", "\x00\x01\x02binary", "<html><body>" + "<div>" * 5000, "<<<>>>"):
        page = extract_main_text(html, "http://a.example/")
        assert page.url == "http://a.example/"


def test_pdf_text() -> None:
    page = extract_pdf(pdf(PDF_TEXT), "http://a.example/r.pdf")
    assert page.method == "pypdf"
    assert PDF_TEXT in page.text


def test_broken_pdf_gives_empty_text() -> None:
    page = extract_pdf(b"%PDF-1.4 this is not really a pdf", "http://a.example/broken.pdf")
    assert page.text == ""
    assert page.method == "pypdf-failed"


def test_a_page_nested_too_deep_is_flattened_to_its_text_without_a_parser() -> None:
    page = extract_main_text(faults.deep_nesting().decode(), "http://nested.test/")
    assert page.method == "flattened"
    assert page.title == "Deep"
    assert page.text == "The deepest paragraph of the page."
    assert page.links == ()
    assert extract_visible_text(faults.deep_nesting().decode(), "http://nested.test/").method == "flattened"


def test_a_page_of_a_hundred_thousand_links_skips_trafilatura_and_keeps_few_links() -> None:
    page = extract_main_text(faults.many_links().decode(), "http://links.test/")
    assert page.method == "selectolax"
    assert len(page.links) == MAX_LINKS
    assert page.text.count(".") >= MANY_LINKS


def test_tag_shape_counts_what_nests() -> None:
    # unclosed paragraphs and list items, void elements and self-closed tags add no depth
    html = "<html><body><div><ul><li>a<li>b</ul><p>one<p>two<br><img src=x /></div></body></html>"
    assert tag_shape(html) == (10, 4)
    assert tag_shape("<div>" * 600 + "</div>" * 600)[1] == 600


RELEASE_NOTES = """<html><head><style>p { color: red }</style>
<script>var hidden = "a script's words";</script></head><body><nav>Home</nav><h1>Release 3.38.0</h1><ul>
<li>Added the <code>-&gt;</code> and <code>-&gt;&gt;</code> operators for easier processing of JSON.</li>
<li>The JSON functions are now built-ins.</li></ul>
<table><tr><td>JSON</td><td>SQLite JSON type.</td></tr></table>
<p>Check-ins are <b>signed</b>&nbsp;by the developers.</p></body></html>"""


def test_the_served_look_holds_every_quote_the_extractors_text_holds() -> None:
    """The verifier reads a page as served now without the extractor: the quotes cut from the
    extractor's text (its list marks, table rules, line breaks) are still found in it."""
    extracted = extract_main_text(RELEASE_NOTES, "http://www.sqlite.test/releaselog/3_38_0.html").text
    served = served_text(RELEASE_NOTES)
    quotes = [line for line in extracted.splitlines() if len(line) > 12]
    quotes += [  # as the extractor lays out such pages (quotes of the dev set's runs)
        "- Added the -> and ->> operators for easier processing of JSON.",
        "| JSON | SQLite JSON type. |",
        "- The JSON functions are now built-ins.",
    ]
    assert len(quotes) == 6
    assert all(served_in(quote, served) for quote in quotes)
    assert "a script's words" not in served
    assert "color: red" not in served
    assert not served_in("The JSON functions are now built-ins in 3.40.", served)
    assert not served_in("", served)


def test_the_served_look_of_a_page_nested_too_deep_is_its_flattened_text() -> None:
    assert served_text(faults.deep_nesting().decode()) == "The deepest paragraph of the page."
