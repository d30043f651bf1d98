"""Swarm mode: a coordinator fanning a goal out to researcher, analyst and verifier agents."""
