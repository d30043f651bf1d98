"""A user's own documents: reading, chunking and the sparse vectors of hybrid search (pure core)."""
