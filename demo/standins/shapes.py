"""The answer-shape fields of the APIs the stand-ins speak, checked as each API checks them.

Each function reads one field as its API defines it and returns what is wrong with it, in the words of the
API's refusal, or None when it is well formed:

* OpenAI's ``response_format`` (:func:`response_format_error`): ``text``, ``json_object`` or ``json_schema``
  with a ``name`` of letters, digits, ``_`` and ``-`` (at most 64) and a ``schema``; with ``strict``, the schema
  keeps to strict mode (an object at the root, every object closed and all its properties required).
* A JSON schema as llama.cpp's ``json_schema`` and vLLM read it (:func:`json_schema_error`): known types, a
  ``properties`` object, ``required`` names, ``enum`` and ``anyOf`` lists.
* llama.cpp's ``grammar`` (:func:`gbnf_error`): GBNF, every rule referred to defined, a ``root`` rule.
* vLLM's ``structured_outputs`` (:func:`structured_outputs_error`): one constraint of its kinds, a ``regex``
  that compiles.
* Gemini's ``responseSchema`` with ``responseMimeType`` (:func:`gemini_schema_error`): a ``Schema`` of Gemini's
  fields only (an unknown one such as ``additionalProperties`` is refused as protobuf refuses it), its types in
  capitals, ``required`` names among the properties, ``enum`` only on strings, and a JSON MIME type.
"""

from __future__ import annotations

import re
from typing import Any

#: The JSON schema types.
_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
_RESPONSE_FORMATS = ("text", "json_object", "json_schema")
_SCHEMA_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: vLLM's structured-output constraints (one per request).
_VLLM_CONSTRAINTS = ("json", "regex", "choice", "grammar", "json_object", "structural_tag")
#: The MIME types Gemini answers in, and those a response schema needs.
GEMINI_MIME_TYPES = ("text/plain", "application/json", "application/xml", "application/yaml", "text/x.enum")
_GEMINI_SCHEMA_MIME = ("application/json", "text/x.enum")
#: Gemini's ``Schema`` fields, in both spellings protobuf's JSON takes.
_GEMINI_FIELDS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
    "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
    "default", "items", "minimum", "maximum", "max_items", "min_items", "min_properties", "max_properties",
    "min_length", "max_length", "any_of", "property_ordering"})
_GEMINI_TYPES = frozenset({"TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"})


# -- OpenAI -------------------------------------------------------------------------------------------


def response_format_error(value: Any) -> tuple[str, str] | None:
    """What OpenAI refuses in a ``response_format``: ``(message, param)``, or None."""
    if not isinstance(value, dict):
        return (f"Invalid type for 'response_format': expected an object, but got {type(value).__name__} instead.",
                "response_format")
    kind = value.get("type")
    if kind not in _RESPONSE_FORMATS:
        return (f"Invalid value: {kind!r}. Supported values are: 'text', 'json_object', and 'json_schema'.",
                "response_format.type")
    if kind != "json_schema":
        return None
    spec = value.get("json_schema")
    if not isinstance(spec, dict):
        return "Missing required parameter: 'response_format.json_schema'.", "response_format.json_schema"
    name = spec.get("name")
    if not isinstance(name, str) or not _SCHEMA_NAME.match(name):
        return ("Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that "
                "matches the pattern '^[a-zA-Z0-9_-]+$'.", "response_format.json_schema.name")
    schema = spec.get("schema")
    if schema is not None and not isinstance(schema, dict):
        return ("Invalid type for 'response_format.json_schema.schema': expected an object.",
                "response_format.json_schema.schema")
    problem = json_schema_error(schema or {})
    if problem is None and spec.get("strict") is True:
        problem = _strict_error(schema or {})
    if problem is not None:
        return f"Invalid schema for response_format '{name}': {problem}", "response_format"
    return None


def _strict_error(schema: dict[str, Any]) -> str | None:
    if schema.get("type") != "object":
        return f"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{schema.get('type')}\"'."
    return _strict_node(schema, ())


def _strict_node(node: Any, context: tuple[str, ...]) -> str | None:
    if not isinstance(node, dict):
        return None
    found = node.get("properties")
    properties: dict[str, Any] = found if isinstance(found, dict) else {}
    if node.get("type") == "object":
        if node.get("additionalProperties") is not False:
            return f"In context={context}, 'additionalProperties' is required to be supplied and to be false."
        missing = [key for key in properties if key not in (node.get("required") or ())]
        if missing:
            return (f"In context={context}, 'required' is required to be supplied and to be an array including every "
                    f"key in properties. Missing '{missing[0]}'.")
    for key, child in properties.items():
        if (problem := _strict_node(child, (*context, "properties", key))) is not None:
            return problem
    for i, child in enumerate(node.get("anyOf") or ()):
        if (problem := _strict_node(child, (*context, "anyOf", str(i)))) is not None:
            return problem
    return _strict_node(node.get("items"), (*context, "items")) if "items" in node else None


# -- JSON schema (llama.cpp, vLLM, OpenAI) -----------------------------------------------------------------


def json_schema_error(schema: Any, at: str = "#") -> str | None:
    """What makes ``schema`` no JSON schema a server can turn into a grammar (``JSON schema error at #/...: ...``
    in llama.cpp's words), or None."""
    if not isinstance(schema, dict):
        return f"JSON schema error at {at}: not an object"
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    for each in kinds:
        if each not in _JSON_TYPES:
            return f"JSON schema error at {at}: unrecognized type {each}"
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        return f"JSON schema error at {at}/properties: not an object"
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return f"JSON schema error at {at}/required: not a list of property names"
    if "enum" in schema and (not isinstance(schema["enum"], list) or not schema["enum"]):
        return f"JSON schema error at {at}/enum: not a non-empty list"
    options = schema.get("anyOf", [])
    if not isinstance(options, list) or ("anyOf" in schema and not options):
        return f"JSON schema error at {at}/anyOf: not a non-empty list"
    children = [(f"{at}/properties/{key}", value) for key, value in properties.items()]
    children += [(f"{at}/anyOf/{i}", option) for i, option in enumerate(options)]
    if "items" in schema:
        children.append((f"{at}/items", schema["items"]))
    if isinstance(schema.get("additionalProperties"), dict):
        children.append((f"{at}/additionalProperties", schema["additionalProperties"]))
    elif "additionalProperties" in schema and not isinstance(schema["additionalProperties"], bool):
        return f"JSON schema error at {at}/additionalProperties: not a boolean or a schema"
    for where, child in children:
        if (problem := json_schema_error(child, where)) is not None:
            return problem
    return None


# -- GBNF (llama.cpp) ---------------------------------------------------------------------------------------

_NAME = re.compile(r"[a-zA-Z0-9_-]+")
_SPACE = re.compile(r"(?:[ \t]|#[^\n]*)*")
_SPACE_NL = re.compile(r"(?:\s|#[^\n]*)*")
_REPEAT = re.compile(r"\{\s*(\d+)\s*(?:(,)\s*(\d*)\s*)?\}")
_ESCAPES = frozenset('tnr\\"[]')
#: llama.cpp's bound on a repeat: its count, and its count times the rules the repeated part generates.
MAX_REPETITION_THRESHOLD = 2000


class _GrammarError(ValueError):
    pass


class _Gbnf:
    """A reader of GBNF as llama.cpp's parser reads it (rules, alternatives, groups, repeats, escapes)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.defined: set[str] = set()
        self.used: set[str] = set()
        self.symbols = 0  # rules generated so far (groups and repeats), as llama.cpp counts them

    def fail(self, what: str) -> _GrammarError:
        return _GrammarError(f"{what} at {self.text[self.at:self.at + 20]!r}")

    def skip(self, newlines: bool = False) -> None:
        self.at = (_SPACE_NL if newlines else _SPACE).match(self.text, self.at).end()  # type: ignore[union-attr]

    def parse(self) -> None:
        self.skip(True)
        while self.at < len(self.text):
            name = _NAME.match(self.text, self.at)
            if name is None:
                raise self.fail("expecting name")
            self.at = name.end()
            self.skip()
            if not self.text.startswith("::=", self.at):
                raise self.fail("expecting ::=")
            self.at += 3
            self.skip(True)
            self.alternatives(nested=False)
            self.defined.add(name.group())
            self.skip(True)
        if "root" not in self.defined:
            raise _GrammarError("grammar does not contain a root symbol")
        undefined = sorted(self.used - self.defined)
        if undefined:
            raise _GrammarError(f"Undefined rule identifier '{undefined[0]}'")

    def alternatives(self, *, nested: bool) -> None:
        self.sequence(nested)
        while self.at < len(self.text) and self.text[self.at] == "|":
            self.at += 1
            self.skip(True)
            self.sequence(nested)

    def sequence(self, nested: bool) -> None:
        while self.at < len(self.text):
            char = self.text[self.at]
            rules = 1  # what the element counts for a repeat of it (a group: the rules generated inside it)
            if char == '"':
                self.literal('"')
            elif char == "[":
                self.char_class()
            elif char == "(":
                before = self.symbols
                self.symbols += 1
                self.at += 1
                self.skip(True)
                self.alternatives(nested=True)
                if self.at >= len(self.text) or self.text[self.at] != ")":
                    raise self.fail("expecting ')'")
                self.at += 1
                rules = max(1, self.symbols - before)
            elif char == ".":
                self.at += 1
            elif (name := _NAME.match(self.text, self.at)) is not None:
                after = _SPACE.match(self.text, name.end()).end()  # type: ignore[union-attr]
                if self.text.startswith("::=", after):
                    return  # the next rule
                self.used.add(name.group())
                self.at = name.end()
            elif char in "|)\r\n":
                if char == ")" and not nested:
                    raise self.fail("unexpected ')'")
                if char in "\r\n" and nested:
                    self.skip(True)
                    continue
                return
            else:
                raise self.fail("expecting an element")
            self.skip(nested)
            self.postfix(rules)
            self.skip(nested)

    def postfix(self, rules: int) -> None:
        """A repeat of the element just read (``rules``: what it counts), checked as llama.cpp checks it."""
        if self.at < len(self.text) and self.text[self.at] in "*+?":
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[self.text[self.at]]
            self.at += 1
        elif (found := _REPEAT.match(self.text, self.at)) is not None:
            low = int(found.group(1))
            high = low if not found.group(2) else int(found.group(3)) if found.group(3) else None
            if high is not None and high < low:
                raise self.fail("invalid repetition bounds")
            self.at = found.end()
        else:
            return
        if low > MAX_REPETITION_THRESHOLD or (high is not None and high > MAX_REPETITION_THRESHOLD):
            raise _GrammarError("number of repetitions exceeds sane defaults, please reduce the number of repetitions")
        total = high if high else low if low else 1
        if rules * total >= MAX_REPETITION_THRESHOLD:
            raise _GrammarError("number of rules that are going to be repeated multiplied by the new repetition "
                                "exceeds sane defaults, please reduce the number of repetitions or rule complexity")
        self.symbols += 1 if high is None else high - low

    def escape(self) -> None:
        self.at += 1
        if self.at >= len(self.text):
            raise self.fail("unexpected end of input")
        char = self.text[self.at]
        sizes = {"x": 2, "u": 4, "U": 8}
        if char in sizes:
            digits = self.text[self.at + 1:self.at + 1 + sizes[char]]
            if len(digits) != sizes[char] or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise self.fail("expecting hex digits")
            self.at += 1 + sizes[char]
        elif char in _ESCAPES:
            self.at += 1
        else:
            raise self.fail(f"unknown escape '\\{char}'")

    def literal(self, quote: str) -> None:
        self.at += 1
        while self.at < len(self.text) and self.text[self.at] != quote:
            if self.text[self.at] == "\\":
                self.escape()
            else:
                self.at += 1
        if self.at >= len(self.text):
            raise self.fail("unexpected end of input")
        self.at += 1

    def char_class(self) -> None:
        self.at += 1
        if self.text.startswith("^", self.at):
            self.at += 1
        while self.at < len(self.text) and self.text[self.at] != "]":
            if self.text[self.at] == "\\":
                self.escape()
            else:
                self.at += 1
        if self.at >= len(self.text):
            raise self.fail("unexpected end of input")
        self.at += 1


def gbnf_error(grammar: Any) -> str | None:
    """What llama.cpp's parser refuses in ``grammar`` (in its log's words; the server answers 400 "failed to
    parse grammar"), or None."""
    if not isinstance(grammar, str):
        return "the grammar is not a string"
    try:
        _Gbnf(grammar).parse()
    except _GrammarError as exc:
        return str(exc)
    return None


# -- vLLM ---------------------------------------------------------------------------------------------------


def structured_outputs_error(value: Any) -> str | None:
    """What vLLM refuses in ``structured_outputs``, or None."""
    if not isinstance(value, dict):
        return "structured_outputs: Input should be a valid dictionary"
    given = [key for key in _VLLM_CONSTRAINTS if value.get(key) is not None]
    if len(given) != 1:
        return ("You can only use one kind of structured outputs constraint but multiple are specified: " + str(value)
                if given else "You must use one kind of structured outputs constraint but none are specified.")
    if given == ["regex"]:
        try:
            re.compile(str(value["regex"]))
        except re.error as exc:
            return f"Failed to compile the regex: {exc}"
    if given == ["json"]:
        return json_schema_error(value["json"])
    if given == ["grammar"]:
        return gbnf_error(value["grammar"])
    return None


# -- Gemini -------------------------------------------------------------------------------------------------


def gemini_schema_error(config: dict[str, Any]) -> str | None:
    """What Gemini refuses in a ``generationConfig``'s response MIME type and schema, or None."""
    mime = config.get("responseMimeType", config.get("response_mime_type"))
    if mime is not None and mime not in GEMINI_MIME_TYPES:
        return ("* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are "
                "`text/plain`, `application/json`, `application/xml`, `application/yaml` and `text/x.enum`.")
    schema = config.get("responseSchema", config.get("response_schema"))
    if schema is None:
        return None
    if mime not in _GEMINI_SCHEMA_MIME:
        return ("* GenerateContentRequest.generation_config.response_schema: response_mime_type must be one of "
                "`application/json` or `text/x.enum` when response_schema is set.")
    return _gemini_node(schema, "generation_config.response_schema")


def _gemini_node(node: Any, at: str) -> str | None:
    if not isinstance(node, dict):
        return f"Invalid value at '{at}' (type.googleapis.com/google.ai.generativelanguage.v1beta.Schema)"
    for key in node:
        if key not in _GEMINI_FIELDS:
            return f'Invalid JSON payload received. Unknown name "{key}" at \'{at}\': Cannot find field.'
    kind = node.get("type")
    if kind is not None and kind not in _GEMINI_TYPES:
        return f"Invalid value at '{at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), {kind!r}"
    properties = node.get("properties") or {}
    if "enum" in node and kind != "STRING":
        return f"* GenerateContentRequest.{at}.enum: only allowed for STRING type"
    if kind == "OBJECT" and "anyOf" not in node and "any_of" not in node and not properties:
        return f"* GenerateContentRequest.{at}.properties: should be non-empty for OBJECT type"
    for i, name in enumerate(node.get("required") or ()):
        if name not in properties:
            return f"* GenerateContentRequest.{at}.required[{i}]: property is not defined"
    for name in node.get("propertyOrdering", node.get("property_ordering")) or ():
        if name not in properties:
            return f"* GenerateContentRequest.{at}.property_ordering: property {name!r} is not defined"
    children = [(f"{at}.properties[{key}].value", value) for key, value in properties.items()]
    children += [(f"{at}.any_of[{i}]", o) for i, o in enumerate(node.get("anyOf", node.get("any_of")) or ())]
    if "items" in node:
        children.append((f"{at}.items", node["items"]))
    for where, child in children:
        if (problem := _gemini_node(child, where)) is not None:
            return problem
    return None
