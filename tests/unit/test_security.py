from __future__ import annotations

import pytest

from fathom_ray.web.security import UrlPolicy, address_problem, content_kind, host_matches


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.7", "private"),
        ("172.16.5.5", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("0.0.0.0", "reserved"),
        ("240.0.0.1", "reserved"),
        ("::ffff:127.0.0.1", "loopback"),
    ],
)
def test_non_public_addresses_are_named(address: str, kind: str) -> None:
    problem = address_problem(address)
    assert problem is not None
    assert kind in problem


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(address) is None


def test_allow_list_admits_named_hosts_only() -> None:
    policy = UrlPolicy.allowing(["*.test", "intranet.example"])
    assert policy.resolved_problem("http://docs.python.test/3.11/", ["127.0.0.1"]) is None
    assert policy.resolved_problem("http://intranet.example/", ["10.0.0.5"]) is None
    problem = policy.resolved_problem("http://127.0.0.1:8080/", ["127.0.0.1"])
    assert problem is not None
    assert "loopback" in problem
    assert UrlPolicy.allowing(["127.0.0.1"]).resolved_problem("http://127.0.0.1:8080/", ["127.0.0.1"]) is None


def test_policy_refuses_other_schemes_and_unresolved_hosts() -> None:
    policy = UrlPolicy()
    assert "scheme" in (policy.resolved_problem("file:///etc/passwd", []) or "")
    assert "did not resolve" in (policy.resolved_problem("http://nowhere.example/", []) or "")
    assert "private" in (policy.resolved_problem("http://a.example/", ["93.184.216.34", "10.0.0.1"]) or "")


def test_host_matching_is_exact_or_by_suffix() -> None:
    assert host_matches("Docs.Python.TEST.", ["*.test"])
    assert not host_matches("test", ["*.test"])
    assert not host_matches("evil-docs.python.test.com", ["docs.python.test"])


@pytest.mark.parametrize(
    ("content_type", "kind"),
    [
        ("text/html; charset=utf-8", "html"),
        ("application/xhtml+xml", "html"),
        ("text/plain", "text"),
        ("application/pdf", "pdf"),
        ("", "html"),
        ("application/octet-stream", None),
        ("image/png", None),
    ],
)
def test_content_kinds(content_type: str, kind: str | None) -> None:
    assert content_kind(content_type) == kind
