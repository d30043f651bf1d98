"""`fathom eval`: questions with gold answers and evidence pages, scores recomputed from result.json."""
