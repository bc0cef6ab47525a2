"""Every scripted stand-in in one place: none of them is a language model.

``client`` (``--llm demo``: the demo player behind a local Gemini protocol stand-in), ``oracle`` (the
player: a competent scripted answerer for the simulated phone's tasks), ``standins`` (local HTTP servers
that speak the Gemini and OpenAI REST APIs), ``episodes`` (scripted trajectories for tests, benchmarks and
annotation fixtures).
"""
