from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fathom_ray.errors import InvalidURLError
from fathom_ray.web.urls import canonicalize, document_chunk, domain_of, is_hub, names_site

path_pieces = st.lists(
    st.sampled_from([*list("abcXYZ019-._~!$&'()*+,;=:@/%?#é "), "%2e", "%7E", "%2F", "%zz", "..", "%C3%A9"]),
    max_size=20,
).map("".join)
hosts = st.sampled_from(["example.com", "EXAMPLE.com", "www.Example.COM", "bücher.de", "127.0.0.1", "[::1]"])
ports = st.sampled_from(["", ":80", ":443", ":8080"])


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https", "HTTP"]))
    return f"{scheme}://{draw(hosts)}{draw(ports)}/{draw(path_pieces)}"


@given(urls())
def test_canonicalize_is_idempotent(url: str) -> None:
    once = canonicalize(url)
    assert canonicalize(once) == once


@given(urls())
def test_canonical_form_has_no_fragment_and_lower_case_scheme(url: str) -> None:
    canonical = canonicalize(url)
    assert "#" not in canonical
    assert canonical.startswith(("http://", "https://"))


@pytest.mark.parametrize(
    ("variant", "canonical"),
    [
        ("HTTP://Example.COM", "http://example.com/"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("http://example.com/a#section", "http://example.com/a"),
        ("http://example.com/a?b=2&a=1", "http://example.com/a?a=1&b=2"),
        ("http://example.com/a?&b=2&&a=1&", "http://example.com/a?a=1&b=2"),
        ("http://example.com/%7euser/%41", "http://example.com/~user/A"),
        ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
        ("http://example.com/a b", "http://example.com/a%20b"),
        ("http://example.com/./a/../b/./c", "http://example.com/b/c"),
        ("http://example.com/café", "http://example.com/caf%C3%A9"),
        ("http://Bücher.de/", "http://xn--bcher-kva.de/"),
        ("http://example.com./", "http://example.com/"),
        ("http://[::1]:80/", "http://[::1]/"),
        ("http://example.com/100%", "http://example.com/100%25"),
    ],
)
def test_canonicalize_examples(variant: str, canonical: str) -> None:
    assert canonicalize(variant) == canonical


def test_equivalent_urls_merge() -> None:
    variants = [
        "http://www.example.com/docs/index.html?b=2&a=1",
        "HTTP://WWW.EXAMPLE.COM:80/docs/./index.html?a=1&b=2#top",
        "http://www.example.com/docs/x/../index.html?a=%31&b=2",
        "http://www.example.com/%64ocs/index.html?b=2&a=1",
    ]
    assert len({canonicalize(v) for v in variants}) == 1


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://example.com/", "scheme"),
        ("javascript:alert(1)", "scheme"),
        ("/relative/path", "scheme"),
        ("http://", "no host"),
        ("http://example.com:99999/", "Port"),
        ("http://exa mple.com/", "host"),
    ],
)
def test_canonicalize_rejects_what_it_cannot_fetch(url: str, reason: str) -> None:
    with pytest.raises(InvalidURLError, match=reason) as info:
        canonicalize(url)
    assert info.value.url == url


def test_domain_of() -> None:
    assert domain_of("https://WWW.Python.org:443/3/") == "python.org"
    assert domain_of("http://docs.python.test/3.11/") == "docs.python.test"


def test_a_document_chunk_source_is_its_own_canonical_form() -> None:
    assert canonicalize("DOC://0FB8A4EC213D#3") == "doc://0fb8a4ec213d#3"
    assert document_chunk("doc://0fb8a4ec213d#12") == ("0fb8a4ec213d", 12)
    assert document_chunk("http://doc.test/#3") is None
    assert domain_of("doc://0fb8a4ec213d#3") == "0fb8a4ec213d"  # productivity per document
    with pytest.raises(InvalidURLError):
        canonicalize("doc://not-an-id#x")


@pytest.mark.parametrize(
    ("text", "url", "named"),
    [
        ("Django 3.2 added a parameter", "http://docs.djangoproject.test/en/3.2/releases/3.2.html", True),
        ("In Bash, which shopt option", "http://www.gnu.test/software/bash/manual/bashref.html", True),
        ("the Debian Policy manual", "http://policy.debian.test/policy.html/ch-files.html", True),
        ("Who wrote Python's sqlite3 module?", "http://www.postgresql.test/docs/15/sql-insert.html", False),
        ("Who wrote Python's sqlite3 module?", "http://www.sqlite.test/lang_upsert.html", False),
        ("Since which SQLite version?", "http://www.sqlite.test/lang_upsert.html", True),
        ("the docs of the test", "http://docs.example.test/index.html", False),  # filler names nothing
    ],
)
def test_a_text_names_a_site_by_its_host_or_first_folders(text: str, url: str, named: bool) -> None:
    assert names_site(text, url) is named


@pytest.mark.parametrize(
    "url",
    [
        "http://docs.example.test/",
        "http://docs.example.test",
        "http://docs.example.test/en/2.2.x/index.html",
        "http://reference.example.test/index.en.html",
        "http://policy.example.test/README.html",
        "http://docs.example.test/3.11/py-modindex.html",
        "http://docs.example.test/3.11/genindex.html",
        "http://docs.example.test/3.11/contents.html",
        "http://docs.example.test/guide/",
    ],
)
def test_a_sites_front_page_and_indexes_are_hubs(url: str) -> None:
    assert is_hub(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://www.example.test/docs/15/sql-merge.html",
        "http://docs.example.test/3.11/library/index-of-things.html",
        "http://docs.example.test/en/indexes.html",
        "http://docs.example.test/3.11/whatsnew/3.10.html",
    ],
)
def test_a_topics_own_page_is_not_a_hub(url: str) -> None:
    assert not is_hub(url)
