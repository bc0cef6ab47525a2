"""Every scripted stand-in in one place: none of them is a language model.

``client`` (``--llm demo``: the demo player as an LLM provider, behind a local Gemini or OpenAI protocol
stand-in; the CLI registers it), ``oracle`` (the player: a competent scripted answerer for the simulated
phone's tasks, which answers each call from its declared purpose and structured inputs), ``standins``
(local HTTP servers that speak the Gemini and OpenAI REST APIs and hand a call's purpose and inputs to
their scripted model), ``episodes`` (the one scripted trajectory maker, for tests, benchmarks and
annotation fixtures).
"""
