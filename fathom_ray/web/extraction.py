"""Main text, links and metadata of a page: trafilatura first, selectolax when it fails.

Extraction never downloads. ``extract_main_text`` runs trafilatura in its
precision mode; when that keeps under ``SHORT_SHARE`` of the page's paragraph
text it also runs trafilatura's balanced mode and keeps the longer of the two
(mechanical, measured on the article-extraction benchmark, see
docs/benchmarks.md). When trafilatura finds nothing or fails, the visible
text of the main element is taken with selectolax. PDFs go through pypdf.
Time bounds live in the ExtractorPool actor, which runs this in a worker
process it can kill; two guards keep hostile pages from reaching it: HTML
nested deeper than ``MAX_DEPTH`` (parsers slow down with depth: 100,000 nested
divs take lexbor half a minute) is flattened to its text by a linear scan, and
a page of more than ``MAX_TAGS_FOR_TRAFILATURA`` tags (a page of 100,000 links)
skips trafilatura for selectolax's linear-time text.
"""

from __future__ import annotations

import html as entities
import io
import json
import logging
import re
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser, LexborNode

from fathom_ray.errors import InvalidURLError
from fathom_ray.models import ExtractedPage, Link, PageMetadata
from fathom_ray.web.urls import canonicalize

logger = logging.getLogger(__name__)

MAX_HTML_CHARS = 5_000_000
MAX_LINKS = 400
CONTEXT_CHARS = 200
SHORT_SHARE = 0.3
CLOSE_SHARE = 1.1  # balanced text at most this much longer than precise: notes, not boilerplate
NOISE = "script,style,noscript,nav,header,footer,aside,form,[role=navigation]"
BLOCKS = frozenset({"p", "li", "td", "dd", "dt", "blockquote", "h1", "h2", "h3", "h4", "figcaption"})
CONTEXT_DEPTH = 3
MAX_DEPTH = 512  # element nesting; real pages stay under 100
MAX_TAGS_FOR_TRAFILATURA = 60_000  # the largest documentation pages hold about 50,000
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(/?)>")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
# void elements, and those whose end tag may be left out: they do not count towards the depth
_UNCOUNTED = frozenset(
    (
        *("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track"),
        *("wbr", "p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot", "option"),
        *("optgroup", "colgroup", "caption", "rb", "rt", "rp"),
    )
)
_ANY_TAG = re.compile(r"<[^>]*>")


def extract_main_text(html: str, url: str) -> ExtractedPage:
    """The page at ``url`` reduced to its title, main text, links and metadata."""
    html = html[:MAX_HTML_CHARS]
    tags, depth = tag_shape(html)
    if depth > MAX_DEPTH:
        return _flattened(html, url)
    tree = LexborHTMLParser(html)
    base = _base_url(tree, url)
    links = _links(tree, base, url)
    metadata = _metadata(tree)
    title = _title(tree)
    text, method = "", ""
    if tags <= MAX_TAGS_FOR_TRAFILATURA:
        text, method = _trafilatura_text(html, url, _paragraph_chars(tree))
    if not text:
        text, method = _visible_text(tree), "selectolax"
    return ExtractedPage(url, title, text, links, metadata, method)


def extract_visible_text(html: str, url: str) -> ExtractedPage:
    """The selectolax path alone: linear-time, for when trafilatura ran out of time."""
    html = html[:MAX_HTML_CHARS]
    if tag_shape(html)[1] > MAX_DEPTH:
        return _flattened(html, url)
    tree = LexborHTMLParser(html)
    links = _links(tree, _base_url(tree, url), url)
    metadata, title = _metadata(tree), _title(tree)
    return ExtractedPage(url, title, _visible_text(tree), links, metadata, "selectolax")


def served_text(html: str) -> str:
    """Every text of the page's body as it comes, scripts, styles and templates aside, with no
    layout and no choice of the main part: linear-time (the depth guard as for extraction), for
    the verifier's look at whether a page as served now still holds a quote."""
    html = html[:MAX_HTML_CHARS]
    if tag_shape(html)[1] > MAX_DEPTH:
        return _flattened(html, "").text
    tree = LexborHTMLParser(html)
    for node in tree.css("script,style,noscript,template"):
        node.decompose()
    root = tree.body or tree.root
    return root.text(separator="") if root is not None else ""


def tag_shape(html: str) -> tuple[int, int]:
    """How many elements ``html`` opens and how deep they nest, by one linear scan (no parser)."""
    opened = depth = deepest = 0
    for found in _TAG.finditer(html):
        closing, name, self_closing = found.group(1), found.group(2).lower(), found.group(3)
        opened += not closing
        if name in _UNCOUNTED or self_closing:
            continue
        if closing:
            depth = max(0, depth - 1)
        else:
            depth += 1
            deepest = max(deepest, depth)
    return opened, deepest


def _flattened(html: str, url: str) -> ExtractedPage:
    """A page nested too deep to parse in time: its text with the tags taken out, no links."""
    title = _TITLE.search(html)
    body = _TITLE.sub(" ", html)
    lines = (" ".join(line.split()) for line in entities.unescape(_ANY_TAG.sub("\n", body)).splitlines())
    text = "\n".join(line for line in lines if line)
    name = " ".join(entities.unescape(title.group(1)).split()) if title else ""
    return ExtractedPage(url, name, text, (), PageMetadata(), "flattened")


def _trafilatura_text(html: str, url: str, paragraph_chars: int) -> tuple[str, str]:
    """Trafilatura's precise text, or its balanced one when the precise one misses most of the
    page's paragraphs, or when the balanced one adds little (a few notes, such as Python's "New in
    version 3.8: See PEP 572" boxes that the precise mode drops) rather than boilerplate."""
    import trafilatura  # noqa: PLC0415 (loaded where pages are extracted, not where this module is named)

    try:
        precise = trafilatura.extract(html, url=url, favor_precision=True, include_comments=False) or ""
        balanced = trafilatura.extract(html, url=url, include_comments=False) or ""
    except (ValueError, TypeError, LookupError, RecursionError) as e:  # lxml and trafilatura internals
        logger.info("trafilatura failed on %s: %s", url, e, extra={"url": url})
        return "", ""
    short = len(precise) < SHORT_SHARE * paragraph_chars
    close = len(precise) < len(balanced) <= CLOSE_SHARE * len(precise)
    if (short and len(balanced) > len(precise)) or close:
        return balanced, "trafilatura-balanced"
    return precise, "trafilatura"


def _paragraph_chars(tree: LexborHTMLParser) -> int:
    return sum(len(node.text()) for node in tree.css("p"))


def _visible_text(tree: LexborHTMLParser) -> str:
    root = tree.css_first("main") or tree.css_first("article") or tree.body
    if root is None:
        return ""
    for node in root.css(NOISE):
        node.decompose()
    lines = (" ".join(line.split()) for line in root.text(separator="\n").splitlines())
    return "\n".join(line for line in lines if line)


def _base_url(tree: LexborHTMLParser, url: str) -> str:
    base = tree.css_first("base[href]")
    href = base.attributes.get("href") if base else None
    return urljoin(url, href) if href else url


def _links(tree: LexborHTMLParser, base: str, page_url: str) -> tuple[Link, ...]:
    try:
        own = canonicalize(page_url)
    except InvalidURLError:
        own = page_url
    seen: dict[str, Link] = {}
    hrefs: set[str] = set()
    for anchor in tree.css("a[href]"):
        href = (anchor.attributes.get("href") or "").strip()
        if href in hrefs or href.startswith("#"):
            continue
        hrefs.add(href)
        try:
            target = canonicalize(urljoin(base, href))
        except (InvalidURLError, ValueError):
            continue
        if target == own or target in seen:
            continue
        seen[target] = Link(target, " ".join(anchor.text().split()), _context(anchor))
        if len(seen) >= MAX_LINKS:
            break
    return tuple(seen.values())


def _context(anchor: LexborNode) -> str:
    """The text of the nearest small block around a link (a paragraph, list item, cell)."""
    node = anchor.parent
    for _ in range(CONTEXT_DEPTH):
        if node is None:
            return ""
        if node.tag in BLOCKS:
            return " ".join(node.text()[: CONTEXT_CHARS * 4].split())[:CONTEXT_CHARS]
        node = node.parent
    return ""


def _meta(tree: LexborHTMLParser, *selectors: str) -> str | None:
    for selector in selectors:
        node = tree.css_first(selector)
        if node is None:
            continue
        value = node.attributes.get("content") or node.attributes.get("datetime") or node.text()
        if value and value.strip():
            return value.strip()
    return None


def _json_ld(tree: LexborHTMLParser) -> dict[str, object]:
    for script in tree.css('script[type="application/ld+json"]'):
        try:
            data = json.loads(script.text())
        except ValueError:
            continue
        items = (
            data if isinstance(data, list) else data.get("@graph", [data]) if isinstance(data, dict) else []
        )
        for item in items:
            if isinstance(item, dict) and ("datePublished" in item or "author" in item):
                return item
    return {}


def _ld_author(value: object) -> str | None:
    if isinstance(value, list):
        names = [name for name in (_ld_author(v) for v in value) if name]
        return ", ".join(names) or None
    if isinstance(value, dict):
        value = value.get("name")
    return value.strip() if isinstance(value, str) and value.strip() else None


def _metadata(tree: LexborHTMLParser) -> PageMetadata:
    ld = _json_ld(tree)
    ld_date = ld.get("datePublished")
    date = _meta(
        tree,
        'meta[property="article:published_time"]',
        'meta[itemprop="datePublished"]',
        'meta[name="date"]',
        'meta[name="dc.date"]',
        'meta[name="DC.date"]',
        "time[datetime]",
    ) or (ld_date if isinstance(ld_date, str) else None)
    author = _meta(tree, 'meta[name="author"]', 'meta[property="article:author"]', '[rel="author"]')
    html_node = tree.css_first("html")
    return PageMetadata(
        date=date,
        author=author or _ld_author(ld.get("author")),
        site_name=_meta(tree, 'meta[property="og:site_name"]'),
        language=(html_node.attributes.get("lang") or None) if html_node else None,
    )


def _title(tree: LexborHTMLParser) -> str:
    found = _meta(tree, 'meta[property="og:title"]', "title", "h1")
    return " ".join(found.split()) if found else ""


def extract_pdf(data: bytes, url: str) -> ExtractedPage:
    """Text of a PDF, page after page; an unreadable PDF gives empty text, never an exception."""
    from pypdf import PdfReader  # noqa: PLC0415 (loaded with the first PDF)
    from pypdf.errors import PyPdfError  # noqa: PLC0415

    try:
        reader = PdfReader(io.BytesIO(data))
        text = "\n\n".join(page.extract_text() or "" for page in reader.pages).strip()
        info = reader.metadata
        title = str(info.title) if info and info.title else ""
        author = str(info.author) if info and info.author else None
    except (PyPdfError, ValueError, KeyError, OSError) as e:
        logger.info("unreadable PDF at %s: %s", url, e, extra={"url": url})
        return ExtractedPage(url, "", "", method="pypdf-failed")
    return ExtractedPage(url, title, text, metadata=PageMetadata(author=author), method="pypdf")
