"""Local HTTP stand-ins for the LLM providers, for tests and offline demos.

:class:`~agent.llm.standins.gemini.GeminiStandIn` speaks Gemini's
``generateContent``; :class:`~agent.llm.standins.openai.OpenAIStandIn` speaks
OpenAI's ``chat/completions``. Both answer from a
:class:`~agent.llm.scripted.ScriptedModel` and inject faults on demand
(:class:`~agent.llm.standins.server.FaultPlan`).
"""
