"""The web plane: URLs and their policy (security, network, politeness), the browser fleet that
spreads fetches over the browser pools, extraction of a page's main text, and search (queries
merged, the local index's page records). The clients themselves are in fathom_ray/adapters/."""
