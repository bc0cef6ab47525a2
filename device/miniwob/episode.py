"""Starting a MiniWoB++ task as its harness does, and reading its reward.

MiniWoB++'s own environment loads the task page, calls ``Math.seedrandom(seed)`` with the numeric seed, sets
the data mode (``train``), calls ``core.startEpisodeReal()`` (which generates the problem, hides the START
cover and starts the episode's timer) and waits until ``WOB_TASK_READY``. We do the same in one page call,
and then:

* lift the timer: ``core.startEpisodeReal`` arms a timeout that ends the episode with reward -1 after
  ``core.EPISODE_MAX_TIME`` (7-30 s), which a person meets and an LLM agent, slower by design, would always
  miss. The timeout is cancelled (and the countdown display stopped), but ``core.endEpisode`` still scales a
  positive reward by the time taken against ``EPISODE_MAX_TIME``; that time-scaled reward
  (``WOB_REWARD_GLOBAL``) is recorded beside the raw one (``WOB_RAW_REWARD_GLOBAL``), which judges;
* hide the query box (its text is the goal, not part of the screen; its space is kept, so nothing moves);
* hide the reward panel and the click canvas: drawn to the right of the task area, they widen the page,
  which a focused element could then scroll sideways;
* wait (at most :data:`IMAGES_TIMEOUT_S`) for the images the problem asks for to load: a CSS image
  (``content: url(...)``, a background) or an ``<img>`` without a size of its own has no size until it
  has loaded, and the first screen an agent sees would lack it (email-inbox's star and trash, social-media's
  icons). The wait is polled from here, not by a timer in the page, which a browser may throttle.
"""

from __future__ import annotations

import json
import time

from latent_agent.device.miniwob.browser import BrowserPage
from latent_agent.device.task_env import TaskReward
from latent_agent.errors import ConfigError, DeviceError, DeviceTimeoutError

#: The data mode the harness sets before each episode (``core.setDataMode``).
DATA_MODE = "train"
#: Seconds a task page may take to load and become ready.
READY_TIMEOUT_S = 10.0
#: Seconds between two looks at ``WOB_TASK_READY``.
READY_POLL_S = 0.02
#: Seconds the images a problem asks for may take to load before the screen is shown without them.
IMAGES_TIMEOUT_S = 3.0
#: Stands in ``core.EP_TIMER`` for the cancelled timeout: ``core.endEpisode`` rewards only while it is not null.
LIFTED_TIMER = "'lifted'"

#: Whether the page's scripts are loaded and ``core.startEpisode`` has put up the START cover (on load).
_LOADED = ("() => typeof core !== 'undefined' && typeof genProblem === 'function' && core.cover_div !== undefined "
           "&& core.cover_div !== null")

_START = f"""(seed) => {{
  Math.seedrandom(seed);
  core.setDataMode({json.dumps(DATA_MODE)});
  core.startEpisodeReal();
  clearTimeout(core.EP_TIMER);
  core.EP_TIMER = {LIFTED_TIMER};
  clearInterval(core.CD_TIMER);
  if (!document.getElementById('latent-hide-query')) {{
    const style = document.createElement('style');
    style.id = 'latent-hide-query';
    style.textContent = '#query {{ visibility: hidden; }} ' +
      '#reward-display, #click-canvas, #attention-canvas {{ display: none !important; }}';
    document.head.appendChild(style);
  }}
  window.scrollTo(0, 0);
}}"""

_READY = "() => WOB_TASK_READY === true"

#: Whether every image the page shows has loaded (or failed: a broken image is final too). A CSS image is
#: asked for again through an ``Image`` of the same URL, which is complete once the browser holds it.
_IMAGES_LOADED = r"""() => {
  const probes = (window.__latentImageProbes = window.__latentImageProbes || new Map());
  const urlPattern = /url\(["']?([^"')]+)["']?\)/g;
  for (const img of document.images) {
    if (!img.complete) return false;
  }
  for (const el of document.body.querySelectorAll('*')) {
    const style = getComputedStyle(el);
    for (const value of [style.content, style.backgroundImage]) {
      if (!value || value.indexOf('url(') < 0) continue;
      for (const match of value.matchAll(urlPattern)) {
        let probe = probes.get(match[1]);
        if (probe === undefined) {
          probe = new Image();
          probe.src = match[1];
          probes.set(match[1], probe);
        }
        if (!probe.complete) return false;
      }
    }
  }
  return true;
}"""
_UTTERANCE = "() => core.getUtterance()"
_REWARD = "() => [WOB_RAW_REWARD_GLOBAL, WOB_REWARD_GLOBAL, WOB_DONE_GLOBAL]"


def start_task(page: BrowserPage, url: str, seed: int) -> str:
    """Load the task page at ``url``, start its episode from ``seed`` with the timer lifted; return the utterance.

    Raises:
        ConfigError: The page did not load, or loaded without a task (a broken page: every episode of the
            task would fail alike); the message names any request that was blocked.
        DeviceTimeoutError: The task never became ready.
        DeviceError: The browser failed or went away.
    """
    blocked_before = len(page.blocked)

    def refused(why: str) -> ConfigError:
        blocked = page.blocked[blocked_before:]
        also = f" (requests blocked: {', '.join(blocked[:3])})" if blocked else ""
        return ConfigError(f"the task page {url} did not load: {why}{also}")

    try:
        page.run(lambda p: p.goto(url, wait_until="load", timeout=READY_TIMEOUT_S * 1000),
                 timeout=READY_TIMEOUT_S + 5)
    except DeviceTimeoutError:
        raise
    except DeviceError as exc:
        if page.gone:  # the browser, not the page: the device failed (a sweep rebuilds it), the input did not
            raise
        raise refused(str(exc)) from None
    # The load event has run every script and window.onload, which puts up the START cover.
    if not page.evaluate(_LOADED):
        raise refused("it defines no MiniWoB++ task (core.js, genProblem and its START cover are missing)")
    page.evaluate(_START, seed)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not page.evaluate(_READY):
        if time.monotonic() > deadline:
            raise DeviceTimeoutError(f"the task page {url} did not become ready within {READY_TIMEOUT_S:g} s")
        time.sleep(READY_POLL_S)
    images_deadline = time.monotonic() + IMAGES_TIMEOUT_S
    # Past the deadline the screen is shown as it is: an image that never loads is the page's own state.
    while not page.evaluate(_IMAGES_LOADED) and time.monotonic() < images_deadline:
        time.sleep(READY_POLL_S)
    return str(page.evaluate(_UTTERANCE))


def read_reward(page: BrowserPage) -> TaskReward:
    """The task's reward now (0.0 and not done while the episode runs)."""
    raw, scaled, done = page.evaluate(_REWARD)
    return TaskReward(raw=float(raw), time_scaled=float(scaled), done=bool(done))
