"""Split source code into logical blocks with real parsers (tree-sitter).

A memory leaf or a code-index entry is only useful if it holds a whole thought: a whole
function, a whole class, the whole import list. So this chunker never cuts inside a block
the grammar knows about; it only chooses *where between blocks* to cut.

How it works, and why:

* Cuts happen only at line starts. Tree-sitter reports UTF-8 byte offsets; we map each
  block to the lines it touches and slice the original ``str`` at line boundaries, so the
  chunks join back to the input byte for byte (CRLF, tabs, non-ASCII and a missing final
  newline included) without ever decoding a byte range. Two blocks sharing a line stay
  together.
* Only the top level and the members of the classes we split are looked at, never the
  inside of a function, so a 5000-deep nest of brackets costs nothing and cannot recurse.
  Class/namespace descent is bounded by ``_MAX_DEPTH``.
* Leading comments, doc comments, decorators and attributes travel with the block that
  follows them (a blank line between a plain comment and the block detaches it). Text
  that belongs to no block (blank lines, stray comments, closing braces) joins the block
  before it.
* Packing (mode "pack") never mixes imports with code: the import block is its own chunk
  (with the file's header comment in front of it), so a search for a symbol does not
  return a wall of ``import`` lines. Other neighbours pack while they fit ``target_tokens``
  and belong to the same class (same ``extra["context"]``).
* Anything unexpected (no grammar, a file over ``MAX_PARSE_BYTES``, an exception from the
  bindings) falls back to blank-line paragraphs packed up to ``target_tokens``; so does a
  run of plain statements or parse errors larger than ``max_tokens``.
"""

from __future__ import annotations

import bisect
import importlib
import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from ihmt.ingest.languages import language_for
from ihmt.model import Chunk
from ihmt.text import count_tokens

log = logging.getLogger(__name__)

# Files larger than this are not parsed: real source rarely gets there (generated or
# minified files do), and tree-sitter's error recovery on large garbage is slow.
MAX_PARSE_BYTES = 1_000_000

# How many levels of class / namespace nesting a split may descend into.
_MAX_DEPTH = 6

MODES = ("pack", "symbol")

# language -> (module, function returning the grammar). Wheels ship the grammars, so
# nothing is ever downloaded.
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "java": ("tree_sitter_java", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "c_sharp": ("tree_sitter_c_sharp", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "ruby": ("tree_sitter_ruby", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "swift": ("tree_sitter_swift", "language"),
}

_ALIASES: dict[str, str] = {
    "py": "python",
    "js": "javascript",
    "jsx": "javascript",
    "node": "javascript",
    "ts": "typescript",
    "golang": "go",
    "rs": "rust",
    "c++": "cpp",
    "cxx": "cpp",
    "cs": "c_sharp",
    "c#": "c_sharp",
    "csharp": "c_sharp",
    "c-sharp": "c_sharp",
    "rb": "ruby",
    "kt": "kotlin",
    "kts": "kotlin",
}

# --- node classification -------------------------------------------------------------
# Node type names are shared across grammars where they mean the same thing, so one set
# per role covers all languages; the few clashes are resolved in ``_classify``.

_IMPORT_TYPES = frozenset(
    {
        "import_statement",  # python, js, ts
        "import_from_statement",
        "future_import_statement",
        "package_declaration",  # java
        "import_declaration",  # java, go, swift
        "package_clause",  # go
        "use_declaration",  # rust
        "extern_crate_declaration",
        "preproc_include",  # c, c++
        "using_declaration",  # c++ (using namespace std;)
        "using_directive",  # c#
        "extern_alias_directive",
        "file_scoped_namespace_declaration",  # c#: namespace X;
        "namespace_use_declaration",  # php
        "package_header",  # kotlin
        "import",
        "import_list",
        "import_header",
    }
)

_CLASS_TYPES = frozenset(
    {
        "class_definition",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "record_struct_declaration",
        "struct_declaration",
        "annotation_type_declaration",
        "trait_declaration",
        "type_declaration",  # go
        "struct_item",
        "enum_item",
        "union_item",
        "trait_item",
        "impl_item",
        "mod_item",
        "class_specifier",
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "type_definition",
        "class",  # ruby class, js/ts class expression
        "module",  # ruby module (a ts ``module`` is a container, see _classify)
        "singleton_class",
        "object_declaration",  # kotlin
        "companion_object",
        "protocol_declaration",  # swift
        "type_alias_declaration",  # ts
        "type_alias",  # kotlin
        "typealias_declaration",  # swift
    }
)

# Classes that only count when they have a body: ``struct foo;`` is a declaration.
_NEEDS_BODY = frozenset(
    {
        "class_specifier",
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "type_definition",
        "mod_item",
    }
)

_FUNCTION_TYPES = frozenset(
    {
        "function_definition",
        "function_declaration",
        "generator_function_declaration",
        "function_signature",
        "function_item",
        "function_signature_item",
        "macro_definition",
        "method_declaration",
        "method_definition",
        "method_signature",
        "abstract_method_signature",
        "method",  # ruby
        "singleton_method",
        "constructor_declaration",
        "compact_constructor_declaration",
        "destructor_declaration",
        "operator_declaration",
        "conversion_operator_declaration",
        "local_function_statement",
        "init_declaration",
        "deinit_declaration",
        "subscript_declaration",
        "protocol_function_declaration",
        "secondary_constructor",
        "anonymous_initializer",
        "method_elem",  # go interface method
    }
)

# Scopes with no meaning of their own: their members are treated as top-level blocks.
_CONTAINER_TYPES = frozenset(
    {
        "namespace_declaration",  # c#
        "namespace_definition",  # c++, php (with a body)
        "linkage_specification",  # extern "C" { ... }
        "preproc_ifdef",  # include guards
        "preproc_if",
        "internal_module",  # ts namespace
    }
)

# Nodes that describe the next block and must stay in front of it.
_COMMENT_TYPES = frozenset(
    {"comment", "line_comment", "block_comment", "multiline_comment", "doc_comment"}
)
_STICKY_PREFIX_TYPES = frozenset({"attribute_item", "decorator", "access_specifier"})
_LOOSE_PREFIX_TYPES = frozenset({"inner_attribute_item", "php_tag"})

_BODY_TYPES = frozenset(
    {
        "class_body",
        "enum_class_body",
        "protocol_body",
        "interface_body",
        "enum_body",
        "annotation_type_body",
        "declaration_list",
        "field_declaration_list",
        "enum_variant_list",
        "enumerator_list",
        "enum_member_declaration_list",
        "enum_declaration_list",
        "body_statement",
        "interface_type",
        "block",
        "statement_block",
        "compound_statement",
    }
)
# Body children whose own children are the members (Java enum: constants ; members).
_FLATTEN_TYPES = frozenset({"enum_body_declarations"})

_IDENT_TYPES = frozenset(
    {
        "identifier",
        "type_identifier",
        "field_identifier",
        "property_identifier",
        "private_property_identifier",
        "simple_identifier",
        "constant",
        "name",
        "variable_name",
        "shorthand_property_identifier",
        "namespace_identifier",
        "package_identifier",
    }
)
# Name nodes taken as they are (their text is the qualified name).
_QUALIFIED_TYPES = frozenset(
    {
        "qualified_name",
        "qualified_identifier",
        "namespace_name",
        "scope_resolution",
        "scoped_identifier",
        "scoped_type_identifier",
        "user_type",
        "generic_type",
        "dotted_name",
        "destructor_name",
        "operator_name",
        "string",
    }
)
# Children that carry the declared name further down (declarators, specs, patterns).
_NAME_CARRIERS = frozenset(
    {
        "variable_declarator",
        "variable_declaration",
        "type_spec",
        "property_element",
        "const_element",
        "assignment",
        "pattern",
        "init_declarator",
        "function_declarator",
        "pointer_declarator",
        "reference_declarator",
        "var_spec",
        "const_spec",
        "enum_constant",
        "enum_entry",
    }
)
# Fields that never hold the declared name (a type, a value, parameters ...).
_NOT_NAME_FIELDS = frozenset(
    {"type", "return_type", "value", "body", "parameters", "arguments", "superclass", "method"}
)

_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)

# When one chunk holds several blocks it takes the most significant kind.
_KIND_RANK = {
    "class": 0,
    "function": 1,
    "method": 2,
    "field": 3,
    "imports": 4,
    "header": 5,
    "other": 6,
}
_OUTPUT_KIND = {"preamble": "header", "comment": "other", "container": "other"}

_GENERICS = re.compile(r"<[^<>]*>")
_SPACES = re.compile(r"\s+")


# --- parsers ------------------------------------------------------------------------------


_parsers: dict[str, tuple[Any, threading.Lock] | None] = {}
_parsers_lock = threading.Lock()


def _parser(language: str) -> tuple[Any, threading.Lock] | None:
    """The cached parser (and its lock: a Parser is not re-entrant) for a language.

    Process-wide cache, one Parser per language; ``None`` when the grammar wheel is missing
    or incompatible, which sends the caller to the fallback splitter.
    """
    with _parsers_lock:
        if language in _parsers:
            return _parsers[language]
        entry: tuple[Any, threading.Lock] | None = None
        spec = _GRAMMARS.get(language)
        if spec is not None:
            try:
                import tree_sitter

                module = importlib.import_module(spec[0])
                grammar = tree_sitter.Language(getattr(module, spec[1])())
                entry = (tree_sitter.Parser(grammar), threading.Lock())
            except Exception:  # noqa: BLE001 - a broken wheel must not break ingestion
                log.warning("no tree-sitter grammar for %s; using the fallback", language)
                entry = None
        _parsers[language] = entry
        return entry


def supported_languages() -> list[str]:
    """Languages parsed with a real grammar (others get the blank-line fallback)."""
    return sorted(lang for lang in _GRAMMARS if _parser(lang) is not None)


def _normalize(language: str | None) -> str:
    lang = (language or "").strip().lower()
    if lang in _GRAMMARS:
        return lang
    if lang in _ALIASES:
        return _ALIASES[lang]
    guessed = language_for(lang) if lang else None
    return guessed or lang


# --- the document: lines in bytes and in characters -------------------------------------


class _Doc:
    """The text with its line starts, both as byte offsets and as str indexes.

    Every ``\\n`` is one byte and one character, so line ``i`` starts at ``bytes[i]`` in the
    UTF-8 encoding and at ``chars[i]`` in the str: tree-sitter offsets map to lines through
    the first table, and chunks are cut from the str through the second.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass")
        self.chars = [0] + [m.end() for m in re.finditer("\n", text) if m.end() < len(text)]
        self.bytes = [0] + [
            m.end() for m in re.finditer(b"\n", self.data) if m.end() < len(self.data)
        ]
        self.nlines = len(self.chars)
        self.chars.append(len(text))
        self._blank: list[bool] | None = None

    def line_of(self, byte: int) -> int:
        return max(0, min(self.nlines - 1, bisect.bisect_right(self.bytes, byte) - 1))

    def span(self, node: Any) -> tuple[int, int]:
        """First and last line a node touches."""
        start, end = node.start_byte, node.end_byte
        return self.line_of(start), self.line_of(max(start, end - 1))

    def slice(self, lo: int, hi: int) -> str:
        return self.text[self.chars[lo] : self.chars[hi]]

    def line(self, i: int) -> str:
        return self.slice(i, i + 1)

    def tokens(self, lo: int, hi: int) -> int:
        return count_tokens(self.slice(lo, hi))

    def blank(self, i: int) -> bool:
        if self._blank is None:
            self._blank = [not line.strip() for line in self.text.split("\n")]
        return self._blank[i]


# --- blocks and chunks in the making ---------------------------------------------------


@dataclass
class _Unit:
    """One block found in the tree: its lines (attached comments included) and meaning."""

    first: int
    last: int
    kind: str  # imports class function method field other comment container header
    name: str | None = None  # qualified: Class.method
    node: Any = None  # the class / container node, for splitting
    short: str | None = None  # unqualified name, for nested qualification
    tags: list[str] = field(default_factory=list)


@dataclass
class _Ctx:
    """Where the units being planned live: inside which class, how deep."""

    owner: str | None = None  # qualified name of the enclosing class
    owner_short: str | None = None
    context: str | None = None  # the enclosing class header line
    depth: int = 0
    member: bool = False  # inside a class body: functions are methods, the rest fields


@dataclass
class _Leaf:
    """A planned chunk: a line range [lo, hi) plus what it holds."""

    lo: int
    hi: int
    kind: str
    name: str | None
    tags: list[str]
    symbols: list[str]
    context: str | None
    oversized: bool = False
    tokens: int = 0


def _merge_tags(*lists: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for tags in lists:
        for tag in tags:
            seen.setdefault(tag, None)
    return list(seen)


def _rank(kind: str) -> int:
    return _KIND_RANK.get(_OUTPUT_KIND.get(kind, kind), 9)


def _clean_name(raw: bytes | str | None) -> str | None:
    """A readable symbol name: generics dropped, ``::`` as ``.``, one line, not too long."""
    if raw is None:
        return None
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if len(text) > 300:
        return None
    for _ in range(5):
        stripped = _GENERICS.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = _SPACES.sub("", text).replace("::", ".").strip(".")
    text = text.strip("'\"").lstrip("$")
    return text if 0 < len(text) <= 120 else None


def _name_of(node: Any) -> str | None:
    """The name a declaration introduces, found through name/declarator fields (bounded)."""
    n = node
    for _ in range(8):
        if n.type in _IDENT_TYPES or n.type in _QUALIFIED_TYPES:
            return _clean_name(n.text)
        nm = n.child_by_field_name("name")
        if nm is not None:
            if nm.type in _IDENT_TYPES or nm.type in _QUALIFIED_TYPES or nm.named_child_count == 0:
                return _clean_name(nm.text)
            n = nm
            continue
        nxt = n.child_by_field_name("declarator") or n.child_by_field_name("left")
        if nxt is not None:
            n = nxt
            continue
        carrier = None
        for i, child in enumerate(n.children):
            if not child.is_named or n.field_name_for_child(i) in _NOT_NAME_FIELDS:
                continue
            if child.type in _IDENT_TYPES:
                return _clean_name(child.text)
            if carrier is None and (
                child.type in _NAME_CARRIERS or child.type.endswith("declarator")
            ):
                carrier = child
        if carrier is None:
            return None
        n = carrier
    return None


def _unwrap(node: Any) -> Any:
    """The declaration inside export / decorator / template / ``declare`` wrappers."""
    for _ in range(4):
        t = node.type
        inner = None
        if t == "export_statement":
            inner = node.child_by_field_name("declaration") or node.child_by_field_name("value")
        elif t == "decorated_definition":
            inner = node.child_by_field_name("definition")
        elif t in ("template_declaration", "ambient_declaration"):
            named = [c for c in node.named_children if c.type != "template_parameter_list"]
            inner = named[-1] if named else None
        elif t == "expression_statement" and node.named_child_count == 1:
            only = node.named_children[0]
            if only.type == "internal_module":
                inner = only
        if inner is None:
            return node
        node = inner
    return node


def _body_of(node: Any) -> Any:
    """The node whose children are a class's members, or None (descends a few levels)."""
    n = node
    for _ in range(4):
        body = n.child_by_field_name("body")
        if body is not None:
            return body
        named = n.named_children
        for child in named:
            if child.type in _BODY_TYPES:
                return child
        specs = [c for c in named if c.type == "type_spec"]
        if len(specs) > 1:  # go: type ( A struct{}; B interface{} ) - several types
            return None
        nxt = n.child_by_field_name("type") or (specs[0] if specs else None)
        if nxt is None:
            return None
        n = nxt
    return None


def _is_docstring(node: Any) -> bool:
    return (
        node.type == "expression_statement"
        and node.named_child_count == 1
        and node.named_children[0].type in ("string", "concatenated_string")
    )


def _is_prefix(node: Any) -> bool:
    t = node.type
    return t in _COMMENT_TYPES or t in _STICKY_PREFIX_TYPES or t in _LOOSE_PREFIX_TYPES


# --- the chunker ---------------------------------------------------------------------------


class _Chunker:
    """Plans the chunks of one parsed document."""

    def __init__(self, doc: _Doc, language: str, target: int, maximum: int, mode: str) -> None:
        self.doc = doc
        self.lang = language
        self.target = target
        self.max = maximum
        self.mode = mode

    # -- entry point

    def run(self, root: Any) -> list[_Leaf]:
        children = list(root.children)
        # A module docstring is the file's header comment.
        first_named = next((c for c in children if c.is_named), None)
        units = self._units(children, _Ctx(), docstring=first_named)
        leaves = self._plan(units, 0, self.doc.nlines, _Ctx())
        return self._pack(leaves)

    # -- finding blocks

    def _units(self, nodes: list[Any], ctx: _Ctx, docstring: Any = None) -> list[_Unit]:
        """Blocks among sibling nodes, each with the comments/decorators in front of it."""
        out: list[_Unit] = []
        pend_first = pend_last = -1
        pend_sticky = False
        for node in nodes:
            if not node.is_named:
                continue
            first, last = self.doc.span(node)
            prefix = _is_prefix(node) or (
                docstring is not None and node == docstring and _is_docstring(node)
            )
            if prefix:
                if pend_first >= 0 and not pend_sticky and first > pend_last + 1:
                    out.append(_Unit(pend_first, pend_last, "comment"))
                    pend_first = -1
                if pend_first < 0:
                    pend_first, pend_last, pend_sticky = first, last, False
                pend_last = max(pend_last, last)
                pend_sticky = pend_sticky or node.type in _STICKY_PREFIX_TYPES
                continue
            unit = self._classify(node, ctx, first, last)
            if pend_first >= 0:
                if pend_sticky or unit.first <= pend_last + 1:
                    unit.first = min(unit.first, pend_first)
                else:
                    out.append(_Unit(pend_first, pend_last, "comment"))
                pend_first = -1
            out.append(unit)
        if pend_first >= 0:
            out.append(_Unit(pend_first, pend_last, "comment"))
        return out

    def _classify(self, node: Any, ctx: _Ctx, first: int, last: int) -> _Unit:
        inner = _unwrap(node)
        t = inner.type
        kind = "other"
        name: str | None = None
        split_node: Any = None
        if inner.is_error or t == "ERROR":
            kind = "other"
        elif self._is_import(inner):
            kind = "imports"
        elif t in _CONTAINER_TYPES or (t == "module" and self.lang != "ruby"):
            if _body_of(inner) is not None or t.startswith("preproc"):
                kind, split_node = "container", inner
                name = _name_of(inner) if not t.startswith("preproc") else None
        elif t in _CLASS_TYPES:
            if t not in _NEEDS_BODY or _body_of(inner) is not None:
                kind, split_node = "class", inner
                name = self._class_name(inner)
        elif t in _FUNCTION_TYPES:
            kind = "method" if ctx.member else "function"
            name = _name_of(inner)
        elif t in ("lexical_declaration", "variable_declaration"):
            kind, name, split_node = self._js_binding(inner, ctx)
        if kind == "other" and ctx.member:
            kind = "field"
            name = _name_of(inner) if not inner.is_error else None
        unit = _Unit(first, last, kind, node=split_node)
        self._name_unit(unit, inner, name, ctx)
        return unit

    def _is_import(self, node: Any) -> bool:
        t = node.type
        if t in _IMPORT_TYPES:
            return not (t == "import" and node.named_child_count == 0)
        if t == "mod_item":  # rust: mod foo;
            return node.child_by_field_name("body") is None
        if t == "namespace_definition":  # php: namespace App;
            return node.child_by_field_name("body") is None
        if t == "export_statement":  # js: export { a } from "./a"
            return node.child_by_field_name("source") is not None
        if t == "expression_statement" and self.lang == "php" and node.named_child_count:
            return node.named_children[0].type.startswith(("require", "include"))
        if t == "call" and self.lang == "ruby":
            method = node.child_by_field_name("method")
            return (
                method is not None
                and node.child_by_field_name("receiver") is None
                and method.text in (b"require", b"require_relative", b"load", b"autoload")
            )
        return False

    def _class_name(self, node: Any) -> str | None:
        if node.type == "impl_item":  # rust: impl Trait for Type -> Type
            target = node.child_by_field_name("type")
            return _clean_name(target.text) if target is not None else None
        if node.type == "companion_object":
            return _name_of(node) or "Companion"
        return _name_of(node)

    def _js_binding(self, node: Any, ctx: _Ctx) -> tuple[str, str | None, Any]:
        """``const f = () => {}`` is a function, ``const C = class {}`` a class and
        ``const fs = require("fs")`` an import."""
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        if len(declarators) == 1:
            value = declarators[0].child_by_field_name("value")
            if value is not None and value.type == "call_expression" and not ctx.member:
                callee = value.child_by_field_name("function")
                if callee is not None and callee.text == b"require":
                    return "imports", None, None
            if value is not None and value.type in _FUNCTION_VALUES:
                return ("method" if ctx.member else "function"), _name_of(declarators[0]), None
            if value is not None and value.type in ("class", "class_expression"):
                return "class", _name_of(declarators[0]), value
        return "other", None, None

    def _name_unit(self, unit: _Unit, node: Any, name: str | None, ctx: _Ctx) -> None:
        """Qualify the name (Class.member) and set the tags that go with the kind."""
        kind = unit.kind
        owner, owner_short = ctx.owner, ctx.owner_short
        if kind == "function" and name:
            if node.type == "method_declaration" and self.lang == "go":
                receiver = self._go_receiver(node)
                if receiver:
                    kind = unit.kind = "method"
                    owner = owner_short = receiver
            elif "." in name and self.lang in ("c", "cpp"):  # void Foo::bar() {}
                kind = unit.kind = "method"
                owner, _, name = name.rpartition(".")
                owner_short = owner.rpartition(".")[2]
        unit.short = name
        if kind in ("class", "method", "field") and name and owner:
            unit.name = f"{owner}.{name}"
        else:
            unit.name = name
        if kind in ("method", "field") and owner_short:
            unit.tags.append(f"class:{owner_short}")
        if kind == "container" and name:
            unit.tags.append(f"namespace:{name}")
        elif kind in ("class", "function", "method", "field") and name:
            unit.tags.append(f"{kind}:{name}")

    @staticmethod
    def _go_receiver(node: Any) -> str | None:
        receiver = node.child_by_field_name("receiver")
        if receiver is None:
            return None
        for param in receiver.named_children:
            rtype = param.child_by_field_name("type")
            if rtype is not None:
                text = rtype.text.decode("utf-8", "replace").lstrip("*&")
                return _clean_name(text.split("[", 1)[0])
        return None

    # -- planning

    def _plan(self, units: list[_Unit], lo: int, hi: int, ctx: _Ctx) -> list[_Leaf]:
        """Tile lines [lo, hi) with groups of units; split the classes that must be split."""
        out: list[_Leaf] = []
        groups = self._group(units, lo, hi, ctx)
        if not groups:  # nothing named at this level (e.g. only error tokens)
            return self._leaves(lo, hi, "other", [], ctx)
        for i, (a, kind, members) in enumerate(groups):
            b = groups[i + 1][0] if i + 1 < len(groups) else hi
            main = [u for u in members if u.kind != "comment"]
            if (
                len(main) == 1
                and main[0].node is not None
                and main[0].kind in ("class", "container")
                and ctx.depth < _MAX_DEPTH
            ):
                split = self._split(main[0], a, b, ctx)
                if split:
                    out.extend(split)
                    continue
            out.extend(self._leaves(a, b, kind, members, ctx))
        return out

    def _group(
        self, units: list[_Unit], lo: int, hi: int, ctx: _Ctx
    ) -> list[tuple[int, str, list[_Unit]]]:
        """Units sharing lines form one group; loose comments and imports coalesce."""
        raw: list[tuple[int, list[_Unit]]] = []
        prev_last = lo - 1
        for unit in units:
            cut = min(max(unit.first, lo), hi - 1)
            if raw and (cut <= prev_last or cut <= raw[-1][0]):
                raw[-1][1].append(unit)
            else:
                raw.append((lo if not raw else cut, [unit]))
            prev_last = max(prev_last, unit.last)
        groups: list[tuple[int, str, list[_Unit]]] = []
        for cut, members in raw:
            kind = self._group_kind(members)
            if kind == "comment":
                if not groups:  # comments before anything: the file's header
                    groups.append((cut, "preamble" if ctx.depth == 0 else "comment", members))
                else:  # a loose comment joins the block before it
                    groups[-1][2].extend(members)
                continue
            if kind == "imports" and groups and groups[-1][1] in ("imports", "preamble"):
                groups[-1] = (groups[-1][0], "imports", groups[-1][2] + members)
                continue
            groups.append((cut, kind, members))
        return groups

    @staticmethod
    def _group_kind(members: list[_Unit]) -> str:
        kinds = [u.kind for u in members if u.kind != "comment"]
        if not kinds:
            return "comment"
        return min(kinds, key=_rank)

    def _split(self, unit: _Unit, a: int, b: int, ctx: _Ctx) -> list[_Leaf] | None:
        """A class (or namespace) cut per member; the header and tail stay in the chunks."""
        big = self.doc.tokens(a, b) > self.max
        if unit.kind == "class" and not big and self.mode != "symbol":
            return None
        node = unit.node
        members = self._member_nodes(node)
        if not members:
            return None
        if unit.kind == "container":
            sub = _Ctx(ctx.owner, ctx.owner_short, ctx.context, ctx.depth + 1, ctx.member)
        else:
            sub = _Ctx(unit.name, unit.short, self._header_line(node), ctx.depth + 1, True)
        units = [u for u in self._units(members, sub) if a <= u.first < b]
        if not units or all(u.kind == "comment" for u in units):
            return None
        if (
            unit.kind == "class"
            and not big
            and not any(u.kind in ("method", "class") for u in units)
        ):
            return None  # symbol mode: a plain data type (fields only) reads best whole
        header = _Unit(a, a, "header", name=unit.name, tags=list(unit.tags))
        if unit.kind == "class" and unit.short:
            header.tags = [f"class:{unit.short}"]
        return self._plan([header, *units], a, b, sub)

    def _member_nodes(self, node: Any) -> list[Any]:
        body = _body_of(node)
        if body is None:
            if node.type.startswith("preproc"):
                name = node.child_by_field_name("name")
                return [c for c in node.named_children if name is None or c != name]
            return []
        nodes: list[Any] = []
        if self.lang == "python":  # comments before the first statement sit outside the block
            name = node.child_by_field_name("name")
            after = name.end_byte if name is not None else node.start_byte
            nodes = [
                c
                for c in node.named_children
                if c.type == "comment" and after < c.start_byte < body.start_byte
            ]
        for child in body.named_children:
            if child.type in _FLATTEN_TYPES:
                nodes.extend(child.named_children)
            else:
                nodes.append(child)
        if self.lang == "python":
            for i, child in enumerate(nodes):
                if child.type != "comment":
                    if _is_docstring(child):  # the class docstring stays in the header
                        del nodes[i]
                    break
        return nodes

    def _header_line(self, node: Any) -> str:
        """The declaration line of a class (the line holding its name), for context."""
        anchor = node.child_by_field_name("name") or node.child_by_field_name("type") or node
        line = self.doc.line(self.doc.line_of(anchor.start_byte)).strip()
        return line[:200]

    def _leaves(self, a: int, b: int, kind: str, members: list[_Unit], ctx: _Ctx) -> list[_Leaf]:
        leaf = self._make_leaf(a, b, kind, members, ctx)
        if leaf.oversized and leaf.kind == "other":  # no block structure to respect here
            return self._paragraphs(a, b, ctx.context)
        return [leaf]

    def _make_leaf(self, a: int, b: int, kind: str, members: list[_Unit], ctx: _Ctx) -> _Leaf:
        out_kind = _OUTPUT_KIND.get(kind, kind)
        ranked = [u for u in members if _OUTPUT_KIND.get(u.kind, u.kind) == out_kind]
        name = next((u.name for u in ranked if u.name), None)
        symbols = [
            u.name for u in members if u.name and u.kind in ("class", "function", "method", "field")
        ]
        tokens = self.doc.tokens(a, b)
        return _Leaf(
            a,
            b,
            out_kind,
            name,
            _merge_tags(*(u.tags for u in members)),
            symbols,
            ctx.context,
            oversized=tokens > self.max,
            tokens=tokens,
        )

    def _paragraphs(self, lo: int, hi: int, context: str | None) -> list[_Leaf]:
        return [
            _Leaf(a, b, "other", None, [], [], context, oversized=t > self.max, tokens=t)
            for a, b, t in _paragraph_ranges(self.doc, lo, hi, self.target, self.max)
        ]

    # -- packing

    def _pack(self, leaves: list[_Leaf]) -> list[_Leaf]:
        out: list[_Leaf] = []
        for leaf in leaves:
            if out and self._can_pack(out[-1], leaf):
                out[-1] = self._join(out[-1], leaf)
            else:
                out.append(leaf)
        return out

    def _can_pack(self, p: _Leaf, q: _Leaf) -> bool:
        if p.oversized or q.oversized or p.context != q.context:
            return False
        if p.tokens + q.tokens > self.target + 1:  # cheap reject before the exact count
            return False
        if self.mode == "symbol":
            if not (p.kind == q.kind and p.kind in ("other", "field")):
                return False
        elif "imports" in (p.kind, q.kind):
            return False
        return self.doc.tokens(p.lo, q.hi) <= self.target

    def _join(self, p: _Leaf, q: _Leaf) -> _Leaf:
        best = p if _rank(p.kind) <= _rank(q.kind) else q
        name = best.name or (q.name if best is p else p.name)
        return _Leaf(
            p.lo,
            q.hi,
            best.kind,
            name,
            _merge_tags(p.tags, q.tags),
            p.symbols + q.symbols,
            p.context,
            tokens=self.doc.tokens(p.lo, q.hi),
        )


def _paragraph_ranges(
    doc: _Doc, lo: int, hi: int, target: int, maximum: int
) -> list[tuple[int, int, int]]:
    """Blank-line separated blocks of lines [lo, hi), packed up to ``target`` tokens.

    A block starts at a non-blank line that follows a blank one; trailing blank lines stay
    with the block before them. Returns (lo, hi, tokens) triples tiling the range.
    """
    starts = [lo]
    for i in range(lo + 1, hi):
        if doc.blank(i - 1) and not doc.blank(i):
            starts.append(i)
    starts.append(hi)
    out: list[tuple[int, int, int]] = []
    for a, b in zip(starts, starts[1:], strict=False):
        tokens = doc.tokens(a, b)
        if out:
            pa, _, pt = out[-1]
            if pt <= maximum and tokens <= maximum and pt + tokens <= target + 1:
                joined = doc.tokens(pa, b)
                if joined <= target:
                    out[-1] = (pa, b, joined)
                    continue
        out.append((a, b, tokens))
    return out


def _to_chunks(doc: _Doc, leaves: list[_Leaf], lang_tag: list[str]) -> list[Chunk]:
    chunks: list[Chunk] = []
    for leaf in leaves:
        extra: dict[str, Any] = {}
        if leaf.context:
            extra["context"] = leaf.context
        if leaf.symbols:
            extra["symbols"] = leaf.symbols
        chunks.append(
            Chunk(
                text=doc.slice(leaf.lo, leaf.hi),
                start_line=leaf.lo + 1,
                end_line=leaf.hi,
                kind=leaf.kind,
                name=leaf.name,
                oversized=leaf.oversized,
                tags=_merge_tags(lang_tag, leaf.tags),
                extra=extra,
            )
        )
    return chunks


def _fallback(doc: _Doc, target: int, maximum: int) -> list[_Leaf]:
    return [
        _Leaf(a, b, "other", None, [], [], None, oversized=t > maximum, tokens=t)
        for a, b, t in _paragraph_ranges(doc, 0, doc.nlines, target, maximum)
    ]


def _parse(doc: _Doc, language: str) -> Any:
    entry = _parser(language)
    if entry is None or len(doc.data) > MAX_PARSE_BYTES:
        return None
    parser, lock = entry
    with lock:
        return parser.parse(doc.data)


def chunk_code(
    text: str,
    language: str,
    *,
    target_tokens: int = 2000,
    max_tokens: int = 3000,
    mode: str = "pack",
) -> list[Chunk]:
    """Cut source code into whole logical blocks; the chunks join back to ``text`` exactly.

    ``mode="pack"`` (memory leaves): imports form one chunk; consecutive small blocks are
    packed while they fit in ``target_tokens``; a class stays whole up to ``max_tokens`` and
    is cut per member beyond that. ``mode="symbol"`` (code index): every function and every
    class member (method, field group, nested class) is its own chunk, so a lookup returns
    one method; a type with fields only (a struct, an enum) stays whole. Member chunks
    carry ``name="Class.member"`` and ``extra["context"]`` (the class declaration line). A
    block that is still larger than ``max_tokens`` and cannot be cut (one huge function) is
    kept whole with ``oversized=True``.

    ``language`` is a name from :func:`supported_languages` (a few aliases such as ``ts``,
    ``c#`` or an extension like ``.java`` are accepted); any other value, a file over
    ``MAX_PARSE_BYTES`` or a parser failure gives blank-line blocks packed up to
    ``target_tokens`` instead. Raises ``ValueError`` only for an unknown ``mode``.
    """
    if mode not in MODES:
        raise ValueError(f"unknown chunking mode {mode!r}; use one of {', '.join(MODES)}")
    if not text:
        return []
    maximum = max(1, max_tokens)
    target = max(1, min(target_tokens, maximum))
    lang = _normalize(language)
    lang_tag = [f"lang:{lang}"] if lang else []
    doc = _Doc(text)
    leaves: list[_Leaf] | None = None
    if lang in _GRAMMARS:
        try:
            tree = _parse(doc, lang)
            if tree is not None:
                leaves = _Chunker(doc, lang, target, maximum, mode).run(tree.root_node)
        except Exception:  # noqa: BLE001 - never fail an ingest over a parser surprise
            log.warning("code chunking of %s failed; using blank-line blocks", lang, exc_info=True)
            leaves = None
    if leaves is None:
        leaves = _fallback(doc, target, maximum)
    chunks = _to_chunks(doc, leaves, lang_tag)
    if "".join(c.text for c in chunks) != text:  # cannot happen; never lose a byte if it does
        log.error("code chunks of %s did not rebuild the input; using blank-line blocks", lang)
        chunks = _to_chunks(doc, _fallback(doc, target, maximum), lang_tag)
    return chunks
