"""The agent: the method of "Latent State Estimation Helps UI Agents to Reason" (Bishop et al., 2024).

Entry point: :func:`latent_agent.agent.episode.run_episode` (async) /
:func:`latent_agent.agent.episode.run_episode_sync`.

Modules: ``episode`` (the loop, stop rules, trajectory writing), ``goal`` and ``goal_guard`` (goal
normalization, and the rule that a rewrite keeps the goal's content), ``latent`` (the latent-state chain
and its parsers), ``methods`` (the one registry of agents by name: the paper's six and the related
methods), ``policy`` and ``policies/`` (one policy per method), ``selection`` / ``select_zero_shot`` /
``select_cot_sc`` / ``select_react`` (action selectors), ``worked_examples`` (the selectors' examples,
data in ``examples/``), ``exemplars/`` and ``caap_*`` (the exemplar memory and CAAP's demonstrations,
answers and element lists), ``calls`` and ``output_caps`` (every LLM call, recorded, with its output
cap), ``unparsable`` and ``placeholders`` (answers a method cannot use), ``observe``, ``hidden_elements``,
``icon_names`` and ``execute`` (the device side), ``trajectory``, ``record_types`` and ``episode_files``
(the on-disk schema and the files an episode may read), ``episode_page`` / ``thumbnails`` /
``screenshots`` (the HTML page of ``latent-agent show`` and the drawings of actions on screenshots that
the rater forms share). The prompts are in
:mod:`latent_agent.prompts`, the LLM clients in :mod:`latent_agent.llm`, the offline stand-ins in
:mod:`latent_agent.demo`.
"""
