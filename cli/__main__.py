"""``python -m latent_agent.cli``: the same as ``latent-agent``."""

import sys

from latent_agent.cli.main import main

sys.exit(main())
