"""The simulated phone's ``invisible_nodes`` noise reaches the agent, as the latent-state paper's observation noise.

The paper names "background content that the user cannot see present in the tree" among the observation
noise an agent must live with. The decoys are such content: the dump reports them visible, so the
cleaner keeps them, and every method (its description, the grounder's element list, CAAP's element list)
reads them, while the screenshot does not show them.
"""

from __future__ import annotations

import pytest

from latent_agent.agent.caap.elements import build_elements
from latent_agent.agent.observe import observe
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import DECOYS, NoiseConfig


@pytest.mark.parametrize("app", ["Settings", "Clock"])
def test_the_decoys_are_in_what_every_method_reads_and_not_in_the_picture(app: str) -> None:
    quiet, noisy = SimDevice(seed=3), SimDevice(seed=3, noise=NoiseConfig(invisible_nodes=2))
    seen = []
    for device in (quiet, noisy):
        device.open_app(app)
        seen.append(observe(device, dict(device.launcher_apps()), screenshot=True))
    calm, noise = seen
    decoys = {n.text for n in noise.tree.iter() if n.text in DECOYS}
    assert decoys and not any(n.text in DECOYS for n in calm.tree.iter())
    assert all(f'"{label}"' in noise.description for label in decoys)
    assert decoys <= {e.text for e in noise.screen.elements}
    assert decoys <= {e.text for e in build_elements(noise.tree)}
    assert noise.screenshot == calm.screenshot
