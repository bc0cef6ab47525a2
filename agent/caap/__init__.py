"""CAAP, context-aware action planning from screenshots: the policy (:mod:`.policy`), its answers'
parser (:mod:`.answer`), its element lists (:mod:`.elements`) and its demonstrations (:mod:`.demos`);
docs/caap.md."""
