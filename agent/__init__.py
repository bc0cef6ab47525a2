"""The agent: the episode loop and the methods it runs.

Entry point: :func:`latent_agent.agent.episode.run_episode` (async) /
:func:`latent_agent.agent.episode.run_episode_sync`.

The core knows no method: ``episode`` (the loop, step and repeat limits, trajectory writing), ``policy``
(the protocol a method implements, and the stop rules), ``methods`` (the one registry of methods by
name), ``calls`` (every LLM call, recorded, with its call kind's output cap), ``unparsable``,
``placeholders`` and ``answer_lines`` (answers a method cannot use, or keeps only in part), ``goal`` and
``goal_guard`` (goal normalization, and the rule that a rewrite keeps the goal's content), ``observe``,
``hidden_elements``, ``icon_names`` and ``execute`` (the device side), ``resources`` (files a method
reads besides the model), ``trajectory``, ``record_types`` and ``episode_files`` (the on-disk schema and
the files an episode may read).

One package per method family: ``latent_state`` (the paper's chain, selectors and both flows),
``reflection`` (staged planning with structured reflection), ``exemplars`` (Synapse's exemplar memory)
and ``caap`` (context-aware action planning from screenshots). ``pages`` holds the episode's HTML page.
The prompts are in :mod:`latent_agent.prompts`, the LLM clients in :mod:`latent_agent.llm`, the offline
stand-ins in :mod:`latent_agent.demo`.
"""
