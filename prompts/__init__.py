"""Every prompt template (``templates/*.j2``) and the one renderer (:mod:`latent_agent.prompts.render`).

Templates render with :class:`jinja2.StrictUndefined`. Each template names the parser of its answer,
which lives beside the code that builds its variables (the latent-state chain, the selectors, the
grounders).
"""
