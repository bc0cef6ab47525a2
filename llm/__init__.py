"""The LLM client layer: one interface over Gemini, OpenAI-compatible servers,
replay cassettes and a scripted model.

Typical use::

    from latent_agent.llm.spec import load_client
    from latent_agent.llm.types import GenerationRequest

    client = load_client("gemini:gemini-2.5-flash")
    completion = await client.generate(GenerationRequest(prompt="Hello", n=4, temperature=0.7))

Modules: ``types`` (records), ``base`` (the interface), ``gemini``,
``openai_compat``, ``replay``, ``scripted``, ``retry``, ``budget``,
``accounting``, ``secrets``, ``capabilities``, ``spec`` (CLI specs and the
loader), ``standins`` (local protocol servers).
"""
