"""No module decides by a suite's name: the suite registry (benchmarks/suite.py) carries what callers ask
(``SuiteSource.combines_others``, ``SuiteSource.sim_task_list``)."""

from __future__ import annotations

from latent_agent.benchmarks.suite import SUITES
from tests.name_comparisons import attribute_or_name, name_comparisons, name_tables, package_comparisons, package_tables

REGISTRY = "benchmarks/suite.py"


def test_no_module_outside_the_registry_compares_a_suites_name() -> None:
    # A task's or a record's ``benchmark`` is a suite's name too (the suite its results count towards).
    found = [hit for subject in ("suite", "benchmark")
             for hit in package_comparisons(attribute_or_name(subject), SUITES, registries=[REGISTRY])]
    assert not found, "decide by the SuiteSource entry's flags instead:\n" + "\n".join(found)


def test_no_module_outside_the_registry_keeps_a_table_of_suite_names() -> None:
    found = package_tables(SUITES, registries=[REGISTRY])
    assert not found, "give the SuiteSource entry a flag instead:\n" + "\n".join(found)


def test_the_checks_find_a_comparison_and_a_table_of_suite_names() -> None:
    source = ('COMBINED = frozenset({"aitw", "paper"})\nSUITES: tuple[str, ...] = ("sim",)\nOTHER = ("sim", "x")\n'
              'def f(record, suite):\n    return record.suite == "sim" or suite in ("miniwob", "y")\n')
    assert name_comparisons(source, "m.py", attribute_or_name("suite"), SUITES) == [
        "m.py:5: compares with 'sim'", "m.py:5: compares with 'miniwob'"]
    assert name_tables(source, "m.py", SUITES) == ["m.py:1: lists 'aitw', 'paper'", "m.py:2: lists 'sim'"]
