"""Staged planning with structured reflection: the policy (:mod:`.policy`, docs/reflection.md)."""
