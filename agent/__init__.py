"""The agent: the method of "Latent State Estimation Helps UI Agents to Reason" (Bishop et al., 2024).

Entry point: :func:`latent_agent.agent.episode.run_episode` (async) /
:func:`latent_agent.agent.episode.run_episode_sync`.

Modules: ``episode`` (the loop, stop rules, trajectory writing), ``goal`` (goal normalization),
``latent`` (the latent-state chain and its parsers), ``methods`` (the six agents by name),
``selection`` / ``select_zero_shot`` / ``select_cot_sc`` / ``select_react`` (action selectors),
``worked_examples`` (the selectors' examples, data in ``examples/``), ``calls`` (every LLM call,
recorded), ``observe`` and ``execute`` (the device side), ``trajectory`` (the on-disk schema),
``report`` / ``thumbnails`` / ``screenshots`` (the HTML page of ``latent-agent show`` and the drawings
of actions on screenshots that the rater forms share). The prompts are in
:mod:`latent_agent.prompts`, the LLM clients in :mod:`latent_agent.llm`, the offline stand-ins in
:mod:`latent_agent.demo`.
"""
