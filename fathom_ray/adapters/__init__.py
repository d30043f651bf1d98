"""The real clients behind the ports, one technology each.

The only part of the core that may import heavy frameworks.
"""
