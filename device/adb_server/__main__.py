"""``python -m device.adb_server --port P [--seed S]``: same as ``latent-agent sim serve``."""

import sys

from device.adb_server.cli import main

sys.exit(main())
