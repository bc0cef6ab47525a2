"""Grounding: a step in words -> one typed device action for the current screen.

Modules: ``actions`` (the typed actions and the one parser of LLM JSON), ``base`` (what a grounder
reads and returns), ``paper`` (the method's grounder, App. D: leaf elements, the default), ``llm``
(the project's validated JSON-action grounder with one retry), ``hybrid`` (rules with rapidfuzz, then
``llm``), ``validate`` (coordinates checked against the element list), ``registry``. The prompts are in
``prompts/templates/``.
"""
