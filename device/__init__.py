"""Device backends: the simulated phone and real devices behind one interface (:mod:`latent_agent.device.base`)."""
