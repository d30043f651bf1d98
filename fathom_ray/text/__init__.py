"""Text tools every layer may use: tokens and BM25 over a few texts (term_match), the full-text
index of pages (text_index), answer normalisation (normalise) and untrusted text made safe for
prompts (untrusted). It imports nothing of research, the web plane or the judges."""
