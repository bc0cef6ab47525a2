"""Every registered method passes the policy contract; the registry's own rules."""

from __future__ import annotations

import pytest

from latent_agent.agent.methods import METHODS, ZERO_SHOT, Method, Variant, get_method, pairs, register, unregister
from latent_agent.agent.policies.history_only import HistoryOnlyPolicy
from latent_agent.errors import ConfigError
from tests.agent.policy_contract import PolicyContract


class TestRegisteredMethods(PolicyContract):
    """The contract, run for every method in the registry."""

    def make_policy(self) -> HistoryOnlyPolicy:
        raise AssertionError("the registered methods' policies are used")

    @pytest.fixture(params=list(METHODS))
    def method_name(self, request: pytest.FixtureRequest) -> str:
        name: str = request.param
        return name


def test_the_paper_pairs_come_from_the_registry() -> None:
    assert [(m.name, b.name) for m, b in pairs()] == [("zero-shot+", "zero-shot-"), ("cot-sc+", "cot-sc-"),
                                                      ("react+", "react-")]
    assert [m.label for m in METHODS.values()][:2] == ["Zero-shot (no latent state)", "Zero-shot + latent state"]


def test_register_refuses_a_taken_name_and_an_unknown_baseline() -> None:
    policy = get_method("zero-shot-").policy
    with pytest.raises(ConfigError, match="already registered"):
        register(Method("zero-shot-", policy, "again", ZERO_SHOT, Variant("x", "(x)")))
    with pytest.raises(ConfigError, match="baseline 'nope' is not registered"):
        register(Method("new", policy, "x", ZERO_SHOT, Variant("x", "(x)"), baseline="nope"))
    assert "new" not in METHODS


def test_unregister_refuses_a_method_another_is_paired_with() -> None:
    with pytest.raises(ConfigError, match="baseline of zero-shot\\+"):
        unregister("zero-shot-")
    with pytest.raises(ConfigError, match="unknown method"):
        unregister("nope")
    assert "zero-shot-" in METHODS
