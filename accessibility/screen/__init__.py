"""Screens seen as pictures: a screenshot turned into the project's UI tree.

The observer reads text with an OCR engine (:mod:`.ocr`), finds switches, checkboxes,
radio buttons, fields, buttons and icons by their shapes (:mod:`.controls`), and arranges
them as a UI tree (:mod:`.layout`) that the description, the grounder and every method read
as they read a dump. :mod:`.merge` adds to a dump's tree what only the picture shows;
:mod:`.score` measures a reading against the true tree of the same screen. See
``docs/observer.md``.
"""

from latent_agent.accessibility.screen.observer import ScreenObserver, ScreenReading

__all__ = ["ScreenObserver", "ScreenReading"]
