"""The core method, "Latent State Estimation Helps UI Agents to Reason" (Bishop et al., 2024).

The latent-state chain and its parsers (:mod:`.chain`), the estimates it records at each step (:mod:`.state`:
the ``+`` agents' policy state in the trajectory), what every action selector reads and returns
(:mod:`.selection`), the three selectors (:mod:`.zero_shot`, :mod:`.cot_sc`, :mod:`.react`) with their
worked examples (:mod:`.worked_examples`, data in ``examples/``), and the two flows: the ``+`` agents
(:mod:`.policy`) and the history-only ``-`` agents (:mod:`.history_only`), which share what they remember
between steps (:mod:`.selector_memory`).
"""
