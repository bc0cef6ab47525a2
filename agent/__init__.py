"""The agent: the method of "Latent State Estimation Helps UI Agents to Reason" (Bishop et al., 2024).

Entry point: :func:`agent.episode.run_episode` (async) / :func:`agent.episode.run_episode_sync`.

Modules: ``episode`` (the loop, stop rules, trajectory writing), ``goal`` (goal normalization),
``latent`` (the latent-state chain and its parsers), ``methods`` (the six agents by name),
``selection`` / ``select_zero_shot`` / ``select_cot_sc`` / ``select_react`` (action selectors),
``calls`` (every LLM call, recorded), ``observe`` and ``execute`` (the device side), ``templates``
(the Jinja2 prompts in ``agent/prompts/``), ``trajectory`` (the on-disk schema), ``report`` (the
HTML page of ``latent-agent show``), ``demo`` / ``demo_oracle`` (the offline ``--llm demo``
stand-in, a scripted oracle that is not a language model), ``llm`` (the LLM clients).
"""
