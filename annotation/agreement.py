"""Agreement between raters: Cohen's kappa (two raters) and Fleiss' kappa (any fixed number).

Both return ``None`` when kappa is undefined, i.e. when chance agreement is
already perfect (every rating in the same category): there is nothing to
agree on beyond chance, and 0/0 is not a number worth reporting.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from latent_agent.errors import AnnotationError


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's kappa of two raters' labels for the same items, in the same order.

    Raises:
        AnnotationError: If the sequences differ in length or are empty.
    """
    if len(a) != len(b) or not a:
        raise AnnotationError(f"Cohen's kappa needs two equally long, non-empty label lists ({len(a)}, {len(b)})")
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb[k] for k in ca.keys() | cb.keys()) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def fleiss_kappa(ratings: Sequence[Sequence[str]]) -> float | None:
    """Fleiss' kappa: ``ratings[i]`` holds the labels every rater gave item ``i``.

    Raises:
        AnnotationError: If there are no items, items have different numbers
            of ratings, or fewer than two ratings each.
    """
    if not ratings:
        raise AnnotationError("Fleiss' kappa needs at least one item")
    m = len(ratings[0])
    if m < 2 or any(len(r) != m for r in ratings):
        raise AnnotationError("Fleiss' kappa needs the same number (>= 2) of ratings for every item")
    n_items = len(ratings)
    totals: Counter[str] = Counter()
    agreement = 0.0
    for labels in ratings:
        counts = Counter(labels)
        totals.update(counts)
        agreement += (sum(c * c for c in counts.values()) - m) / (m * (m - 1))
    p_bar = agreement / n_items
    p_e = sum((c / (n_items * m)) ** 2 for c in totals.values())
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1.0 - p_e)
