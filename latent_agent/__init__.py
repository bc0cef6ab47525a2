"""latent-agent: an Android UI agent that estimates latent state, and its evaluation harness.

This package holds what the pipeline packages share: the error hierarchy, the
command-line interface and small cross-cutting helpers. The pipeline itself lives
in the sibling packages, in the order data flows through them:
``accessibility`` (observation) -> ``agent`` (latent state, selection) ->
``grounder`` (actions) -> ``device``.
"""

__version__ = "0.1.0"
