"""Grounding: a step in words -> one typed device action for the current screen.

Modules: ``actions`` (the typed actions and the one parser of LLM JSON), ``base`` (what a grounder
reads and returns), ``llm`` (the JSON-action prompt in ``grounder/prompts/``), ``hybrid`` (rules
with rapidfuzz, then the LLM), ``validate`` (coordinates checked against the screen), ``registry``.
"""
