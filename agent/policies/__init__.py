"""Agent methods, one module each (see :mod:`latent_agent.agent.policy` for what they implement)."""
