"""The offline test web: Debian's documentation sites, a search engine and fault hosts on 127.0.0.1."""
