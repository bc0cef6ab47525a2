"""Local HTTP stand-ins for the LLM providers, for tests and offline demos.

:class:`~latent_agent.demo.standins.gemini.GeminiStandIn` speaks Gemini's
``generateContent``; :class:`~latent_agent.demo.standins.openai.OpenAIStandIn` speaks
OpenAI's ``chat/completions``. Both answer from a
:class:`~latent_agent.llm.scripted.ScriptedModel` and inject faults on demand
(:class:`~latent_agent.demo.standins.server.FaultPlan`).
:class:`~latent_agent.demo.standins.client.StandInClient` asks one through the real SDK, handing it
each call's purpose and inputs in-process (:mod:`latent_agent.demo.standins.board`).
"""
