"""The episode's HTML page (:mod:`.episode_page`, what ``latent-agent show`` writes) and the drawings of
actions on screenshots it shares with the rater forms (:mod:`.screenshots`, :mod:`.thumbnails`).

They live with the agent because they read only an episode's files; the report and the rater forms, which
also read a sweep, are in ``benchmarks/`` and ``annotation/``."""
