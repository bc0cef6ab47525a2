"""Device backends: the simulated phone and real devices behind one interface (:mod:`device.base`)."""
