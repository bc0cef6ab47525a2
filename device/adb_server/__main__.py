"""``python -m latent_agent.device.adb_server --port P [--seed S]``: same as ``latent-agent sim serve``."""

import sys

from latent_agent.device.adb_server.cli import main

sys.exit(main())
