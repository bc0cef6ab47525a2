"""Exemplar memory (Synapse): the policy (:mod:`.policy`), harvested demonstrations cut into pieces
(:mod:`.pieces`), stored on disk (:mod:`.memory`) and retrieved by embedding the goal (:mod:`.retrieval`)."""
