"""MiniWoB++ as a device: its task pages in headless Chromium, judged by their own reward.

``--device miniwob:TASK`` (or ``miniwob``, when each episode names its task). One module per concept:
:mod:`~latent_agent.device.miniwob.tasks` (the pages of the installed ``miniwob`` distribution),
:mod:`~latent_agent.device.miniwob.browser` (one Chromium per process lending pages),
:mod:`~latent_agent.device.miniwob.episode` (seeding, starting and the reward),
:mod:`~latent_agent.device.miniwob.dump` (the page as a uiautomator dump),
:mod:`~latent_agent.device.miniwob.page_view` (the page as the web papers observe it, from the same page call),
:mod:`~latent_agent.device.miniwob.actions` (taps, keys, wheel, drags, waiting for idle) and
:mod:`~latent_agent.device.miniwob.device` (the :class:`~latent_agent.device.task_env.TaskDevice`).
See docs/miniwob.md.
"""
