"""No module decides by a method's name: the method registry (agent/methods.py) carries what callers ask."""

from __future__ import annotations

from latent_agent.agent.methods import METHODS
from tests.name_comparisons import attribute_or_name, name_comparisons, package_comparisons


def test_no_module_outside_the_registry_compares_a_methods_name() -> None:
    found = package_comparisons(attribute_or_name("method"), METHODS, registries=["agent/methods.py"])
    assert not found, "decide by the Method entry (family, policy, flags) instead:\n" + "\n".join(found)


def test_the_check_finds_a_comparison_of_a_methods_name() -> None:
    source = 'def f(record, method):\n    return record.method == "caap" or method in ("zero-shot+", "x")\n'
    assert name_comparisons(source, "m.py", attribute_or_name("method"), METHODS) == [
        "m.py:2: compares with 'caap'", "m.py:2: compares with 'zero-shot+'"]
