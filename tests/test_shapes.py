"""An answer's shape, defined once (latent_agent/shapes.py): a pattern rendered as GBNF and as a regular expression
that agree, words kept out, repeated parts as named rules (llama.cpp's bound on repeats), a registry by purpose."""

from __future__ import annotations

import random
import re

import pytest

from latent_agent.agent.answer_shapes import register_builtin_shapes
from latent_agent.agent.reflection.purposes import PLAN
from latent_agent.demo.standins.shapes import gbnf_error
from latent_agent.errors import ConfigError
from latent_agent.llm.ping import PING_PURPOSE
from latent_agent.shapes import (
    AnswerShape,
    alt,
    chars,
    gbnf,
    lines,
    lit,
    optional,
    regex,
    register_shape,
    repeat,
    seq,
    shape_for,
    word,
)
from latent_agent.surfaces import PHONE, WEB_PAGE

from .shape_samples import sample_text


def test_a_pattern_renders_as_a_grammar_and_an_expression_that_agree() -> None:
    pattern = seq(alt("Yes", "No"), optional("."), repeat(seq("\n", chars('"\n', negated=True)), 0, 3))
    assert regex(pattern) == '(?:(?:Yes|No)\\.?(?:\\n[^\\n"]){0,3})'
    assert gbnf(pattern) == 'root ::= (("Yes" | "No") "."? r1{0,3})\nr1 ::= ("\\n" [^\\n"])\n'
    assert gbnf_error(gbnf(pattern)) is None
    matcher = re.compile(regex(pattern))
    assert matcher.fullmatch('Yes.\nx\n"') is None and matcher.fullmatch("No\nx\ny")


def test_special_characters_are_escaped_in_both_forms() -> None:
    text = 'a.b*c(d)[e]{f}|g^h$i\\j"k-l\nm'
    pattern = seq(lit(text), chars("-]^\\[\"a"))
    assert re.fullmatch(regex(pattern), text + "-") and re.fullmatch(regex(pattern), text + "]")
    assert not re.fullmatch(regex(pattern), text + "b")
    assert gbnf_error(gbnf(pattern)) is None


def test_a_word_is_any_run_but_the_excluded_ones() -> None:
    pattern = word(chars("A-Za-z"), 6, frozenset({"NAME", "label", "lab"}))
    matcher = re.compile(regex(pattern))
    for kept in ("NAMES", "NAM", "Label", "labe", "la", "x", "labels", "ABCDEF"):
        assert matcher.fullmatch(kept), kept
    for refused in ("NAME", "label", "lab", "", "ABCDEFG", "a b"):
        assert not matcher.fullmatch(refused), refused
    rng = random.Random(0)
    assert all(sample_text(pattern, rng) not in ("NAME", "label", "lab") for _ in range(300))
    capital = re.compile(regex(word(chars("A-Za-z"), 6, frozenset({"NAME"}), first=chars("A-Z"))))
    assert capital.fullmatch("Names") and capital.fullmatch("N") and not capital.fullmatch("names")
    assert not capital.fullmatch("NAME") and capital.fullmatch("NAMEx")


def test_repeated_parts_are_named_rules_so_llamacpp_takes_them() -> None:
    """llama.cpp refuses a repeat whose part generates rules x count >= 2,000 (a line of up to 300 characters, ten
    times, inline); by name it counts one (the stand-in checks as llama.cpp does; the real server: the real test)."""
    line = seq(lit("x"), repeat(chars("\n", negated=True), 0, 300))
    grammar = gbnf(lines(line, 1, 10))
    assert gbnf_error(grammar) is None and grammar.count("::=") == 2
    inline = 'root ::= ("x" [^\\n]{0,300}) ("\\n" ("x" [^\\n]{0,300})){0,9}\n'
    assert "exceeds sane defaults" in str(gbnf_error(inline))


def test_a_shape_is_json_or_text_and_reads_back_from_its_record() -> None:
    schema = {"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "string"}}, "required": ["b"]}
    shape = AnswerShape.json("an answer (test)", schema)
    assert shape.kind == "json" and list(shape.schema["properties"]) == ["b", "a"]  # the order is kept
    assert shape.slug == "an_answer_test" and not shape.grammar
    text = AnswerShape.text("a word", lit("hi"))
    assert text.grammar == 'root ::= "hi"\n' and text.expression == "hi"
    assert AnswerShape.from_json(text.to_json()) == text and AnswerShape.from_json(shape.to_json()) == shape
    with pytest.raises(ValueError, match="not a serialised answer shape"):
        AnswerShape.from_json({"kind": "xml", "name": "x"})


def test_the_registry_finds_a_shape_by_purpose_and_surface() -> None:
    """The plan's rule again is harmless, another rule for it is refused; a purpose without one, or no purpose, has
    no shape."""
    register_builtin_shapes()
    register_builtin_shapes()
    plan = shape_for(PLAN, PHONE)
    assert plan is not None and plan != shape_for("plan", WEB_PAGE)
    with pytest.raises(ConfigError, match="plan calls have a shape registered already"):
        register_shape(PLAN, lambda surface: None)
    assert shape_for(PLAN, PHONE) == plan
    assert shape_for(PING_PURPOSE, PHONE) is None and shape_for("not a purpose", WEB_PAGE) is None
