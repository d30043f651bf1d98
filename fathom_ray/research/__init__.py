"""One research session: the rounds (session_loop), their state and events, the frontier and its
ranking, the fact ledger, the checklist's steps, the answer lines and report, the finished result,
the presets and budgets, and the single-pass baseline. It calls the judges, the web plane and the
stores through the ports (fathom_ray/ports.py)."""
