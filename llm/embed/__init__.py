"""Text embedders: the interface (:mod:`.base`) and the registered backends (:mod:`.registry`)."""
