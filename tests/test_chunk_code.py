"""The code chunker: whole blocks, byte-exact reconstruction, names, budgets, robustness.

Every sample below is a small realistic file (imports, comments, a class with several
methods, a free function) written for these tests.
"""

from __future__ import annotations

import logging
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt.ingest.chunkers import code as code_mod
from ihmt.ingest.chunkers.code import chunk_code, supported_languages
from ihmt.model import Chunk
from ihmt.text import count_tokens

# --- samples -----------------------------------------------------------------------------

PY = '''"""Inventory helpers used by the warehouse service."""

import logging
from dataclasses import dataclass

log = logging.getLogger(__name__)


# Keeps the stock of one warehouse.
@dataclass
class Inventory:
    """Counts items per SKU."""

    capacity: int = 100

    def add(self, sku: str, qty: int) -> None:
        """Add stock."""
        self.items[sku] = self.items.get(sku, 0) + qty

    @property
    def total(self) -> int:
        return sum(self.items.values())

    def remove(self, sku: str, qty: int) -> bool:
        if self.items.get(sku, 0) < qty:
            return False
        self.items[sku] -= qty
        return True


def restock(inv: Inventory, sku: str) -> None:
    # top up to ten
    inv.add(sku, 10)


if __name__ == "__main__":
    restock(Inventory(), "A1")
'''

JAVA = """/*
 * Copyright 2024 Example Corp.
 */
package com.example.inventory;

import java.util.HashMap;
import java.util.Map;

/** Keeps the stock of one warehouse. */
@Service
public final class InventoryService {
    private final Map<String, Integer> stock = new HashMap<>();
    private int reservations = 0;

    public InventoryService() {
        this.reservations = 0;
    }

    /** Reserve some units. */
    @Override
    public boolean reserveStock(String sku, int qty) {
        int have = stock.getOrDefault(sku, 0);
        if (have < qty) {
            return false;
        }
        stock.put(sku, have - qty);
        return true;
    }

    public int count(String sku) {
        return stock.getOrDefault(sku, 0);
    }

    static class Entry {
        int qty;
    }
}

interface Auditor {
    void audit(String sku);
}
"""

JS = """// Shopping cart helpers.
import { formatPrice } from "./format.js";
import fs from "fs";

const TAX = 0.21;

/** A shopping cart. */
export class Cart {
  constructor() {
    this.items = [];
  }

  add(item) {
    this.items.push(item);
  }

  total() {
    return this.items.reduce((s, i) => s + i.price, 0);
  }
}

export function checkout(cart) {
  const sum = cart.total() * (1 + TAX);
  return formatPrice(sum);
}

const double = (x) => {
  return x * 2;
};
"""

TS = """import { Injectable } from "@angular/core";
import type { Order } from "./order";

// Service that talks to the orders API.
@Injectable()
export class OrderService {
  private cache: Map<string, Order> = new Map();

  constructor(private readonly http: HttpClient) {}

  get(id: string): Order | undefined {
    return this.cache.get(id);
  }

  put(order: Order): void {
    this.cache.set(order.id, order);
  }
}

export interface Shape {
  area(): number;
}

export function totalOf(orders: Order[]): number {
  return orders.reduce((s, o) => s + o.total, 0);
}
"""

TSX = """import React from "react";
import { useState } from "react";

interface Props {
  title: string;
}

// A counter widget.
export class Counter extends React.Component<Props> {
  state = { n: 0 };

  increment(): void {
    this.setState({ n: this.state.n + 1 });
  }

  reset(): void {
    this.setState({ n: 0 });
  }

  render() {
    return <div onClick={() => this.increment()}>{this.props.title}: {this.state.n}</div>;
  }
}

export function Hello({ title }: Props) {
  const [n] = useState(0);
  return <h1>{title} {n}</h1>;
}
"""

GO = """// Package inventory keeps stock counts.
package inventory

import (
	"errors"
	"fmt"
)

// Store holds stock per SKU.
type Store struct {
	items map[string]int
}

// Add puts units into the store.
func (s *Store) Add(sku string, qty int) {
	s.items[sku] += qty
}

func (s *Store) Remove(sku string, qty int) error {
	if s.items[sku] < qty {
		return errors.New("not enough stock")
	}
	s.items[sku] -= qty
	return nil
}

func (s *Store) Count(sku string) int {
	return s.items[sku]
}

// Describe formats a line.
func Describe(sku string, qty int) string {
	return fmt.Sprintf("%s: %d", sku, qty)
}
"""

RUST = """//! Stock keeping.
use std::collections::HashMap;
use std::fmt;

/// Holds the stock.
#[derive(Debug, Default)]
pub struct Store {
    items: HashMap<String, u32>,
}

impl Store {
    /// A new empty store.
    pub fn new() -> Self {
        Store { items: HashMap::new() }
    }

    pub fn add(&mut self, sku: &str, qty: u32) {
        *self.items.entry(sku.to_string()).or_insert(0) += qty;
    }

    pub fn count(&self, sku: &str) -> u32 {
        *self.items.get(sku).unwrap_or(&0)
    }
}

pub trait Audit {
    fn audit(&self) -> bool;
}

pub fn describe(sku: &str, qty: u32) -> String {
    format!("{}: {}", sku, qty)
}
"""

C = """/* stock.c - stock keeping */
#include <stdio.h>
#include <stdlib.h>
#include "stock.h"

#define MAX_ITEMS 64

/* One stock line. */
struct item {
    char sku[16];
    int qty;
};

typedef struct {
    struct item items[MAX_ITEMS];
    int n;
} store_t;

static int count_items(const store_t *s) {
    return s->n;
}

/* Add units to a SKU. */
int store_add(store_t *s, const char *sku, int qty) {
    if (s->n >= MAX_ITEMS) {
        return -1;
    }
    s->items[s->n].qty = qty;
    s->n++;
    return 0;
}

void store_print(const store_t *s) {
    for (int i = 0; i < s->n; i++) {
        printf("%s %d\\n", s->items[i].sku, s->items[i].qty);
    }
}
"""

CPP = """// inventory.cpp
#include <map>
#include <string>

namespace shop {

// Keeps stock per SKU.
class Inventory {
public:
    Inventory() : total_(0) {}

    void add(const std::string& sku, int qty) {
        items_[sku] += qty;
        total_ += qty;
    }

    int count(const std::string& sku) const {
        auto it = items_.find(sku);
        return it == items_.end() ? 0 : it->second;
    }

    int total() const { return total_; }

private:
    std::map<std::string, int> items_;
    int total_;
};

int describe(const Inventory& inv) {
    return inv.total();
}

}  // namespace shop

int main() {
    shop::Inventory inv;
    inv.add("A1", 3);
    return 0;
}
"""

CSHARP = """using System;
using System.Collections.Generic;

namespace Shop.Inventory
{
    /// <summary>Keeps stock.</summary>
    [Serializable]
    public class InventoryService
    {
        private readonly Dictionary<string, int> _stock = new();

        public int Reservations { get; private set; }

        public InventoryService()
        {
            Reservations = 0;
        }

        public bool ReserveStock(string sku, int qty)
        {
            if (!_stock.TryGetValue(sku, out var have) || have < qty)
            {
                return false;
            }
            _stock[sku] = have - qty;
            return true;
        }

        public int Count(string sku)
        {
            return _stock.GetValueOrDefault(sku);
        }
    }

    public static class Helpers
    {
        public static string Describe(string sku) => $"SKU {sku}";
    }
}
"""

PHP = """<?php
// Inventory service.
namespace App\\Inventory;

use App\\Models\\Item;
use Psr\\Log\\LoggerInterface;

/**
 * Keeps stock.
 */
class InventoryService
{
    private array $stock = [];

    public function __construct(private LoggerInterface $log)
    {
        $this->log->info("ready");
    }

    public function reserveStock(string $sku, int $qty): bool
    {
        if (($this->stock[$sku] ?? 0) < $qty) {
            return false;
        }
        $this->stock[$sku] -= $qty;
        return true;
    }

    public function count(string $sku): int
    {
        return $this->stock[$sku] ?? 0;
    }
}

function describe(string $sku): string
{
    return "SKU " . $sku;
}
"""

RUBY = """# Inventory keeping.
require "json"
require_relative "item"

# Keeps stock per SKU.
class Inventory
  attr_reader :items

  def initialize
    @items = {}
  end

  def add(sku, qty)
    @items[sku] = (@items[sku] || 0) + qty
  end

  def count(sku)
    @items.fetch(sku, 0)
  end
end

def describe(sku, qty)
  "#{sku}: #{qty}"
end
"""

KOTLIN = """package com.example.inventory

import java.util.concurrent.ConcurrentHashMap
import kotlin.math.max

/** Keeps the stock of one warehouse. */
class InventoryService(private val name: String) {
    private val stock = ConcurrentHashMap<String, Int>()
    var reservations: Int = 0

    fun reserveStock(sku: String, qty: Int): Boolean {
        val have = stock.getOrDefault(sku, 0)
        if (have < qty) {
            return false
        }
        stock[sku] = have - qty
        return true
    }

    fun count(sku: String): Int {
        return stock.getOrDefault(sku, 0)
    }

    fun clear() {
        stock.clear()
    }

    companion object {
        const val LIMIT = 10
    }
}

// Formats a line.
fun describe(sku: String, qty: Int): String {
    return "$sku: ${max(qty, 0)}"
}
"""

SWIFT = """import Foundation
import UIKit

/// Keeps the stock of one warehouse.
class InventoryService {
    private var stock: [String: Int] = [:]
    var reservations = 0

    init() {
        reservations = 0
    }

    func reserveStock(sku: String, qty: Int) -> Bool {
        let have = stock[sku] ?? 0
        if have < qty {
            return false
        }
        stock[sku] = have - qty
        return true
    }

    func count(sku: String) -> Int {
        return stock[sku] ?? 0
    }
}

struct Item {
    let sku: String
    let qty: Int
}

// Formats a line.
func describe(sku: String, qty: Int) -> String {
    return "\\(sku): \\(qty)"
}
"""

SAMPLES: dict[str, str] = {
    "python": PY,
    "java": JAVA,
    "javascript": JS,
    "typescript": TS,
    "tsx": TSX,
    "go": GO,
    "rust": RUST,
    "c": C,
    "cpp": CPP,
    "c_sharp": CSHARP,
    "php": PHP,
    "ruby": RUBY,
    "kotlin": KOTLIN,
    "swift": SWIFT,
}
LANGUAGES = sorted(SAMPLES)

# Per language: (expected chunk name, a unique piece of the signature) for every function
# and method whose whole body must sit in exactly one chunk in symbol mode.
SYMBOLS: dict[str, list[tuple[str, str]]] = {
    "python": [
        ("Inventory.add", "def add("),
        ("Inventory.total", "def total("),
        ("Inventory.remove", "def remove("),
        ("restock", "def restock("),
    ],
    "java": [
        ("InventoryService.InventoryService", "public InventoryService() {"),
        ("InventoryService.reserveStock", "public boolean reserveStock("),
        ("InventoryService.count", "public int count("),
    ],
    "javascript": [
        ("Cart.constructor", "constructor() {"),
        ("Cart.add", "add(item) {"),
        ("Cart.total", "total() {"),
        ("checkout", "export function checkout("),
        ("double", "const double = "),
    ],
    "typescript": [
        ("OrderService.constructor", "constructor(private readonly"),
        ("OrderService.get", "get(id: string)"),
        ("OrderService.put", "put(order: Order)"),
        ("totalOf", "export function totalOf("),
    ],
    "tsx": [
        ("Counter.increment", "increment(): void"),
        ("Counter.reset", "reset(): void"),
        ("Counter.render", "render() {"),
        ("Hello", "export function Hello("),
    ],
    "go": [
        ("Store.Add", "func (s *Store) Add("),
        ("Store.Remove", "func (s *Store) Remove("),
        ("Store.Count", "func (s *Store) Count("),
        ("Describe", "func Describe("),
    ],
    "rust": [
        ("Store.new", "pub fn new()"),
        ("Store.add", "pub fn add("),
        ("Store.count", "pub fn count("),
        ("describe", "pub fn describe("),
    ],
    "c": [
        ("count_items", "static int count_items("),
        ("store_add", "int store_add("),
        ("store_print", "void store_print("),
    ],
    "cpp": [
        ("Inventory.Inventory", "Inventory() : total_(0)"),
        ("Inventory.add", "void add("),
        ("Inventory.count", "int count("),
        ("Inventory.total", "int total() const"),
        ("describe", "int describe("),
        ("main", "int main()"),
    ],
    "c_sharp": [
        ("InventoryService.InventoryService", "public InventoryService()"),
        ("InventoryService.ReserveStock", "public bool ReserveStock("),
        ("InventoryService.Count", "public int Count("),
    ],
    "php": [
        ("InventoryService.__construct", "public function __construct("),
        ("InventoryService.reserveStock", "public function reserveStock("),
        ("InventoryService.count", "public function count("),
        ("describe", "function describe("),
    ],
    "ruby": [
        ("Inventory.initialize", "def initialize"),
        ("Inventory.add", "def add("),
        ("Inventory.count", "def count("),
        ("describe", "def describe("),
    ],
    "kotlin": [
        ("InventoryService.reserveStock", "fun reserveStock("),
        ("InventoryService.count", "fun count("),
        ("InventoryService.clear", "fun clear()"),
        ("describe", "fun describe("),
    ],
    "swift": [
        ("InventoryService.init", "init() {"),
        ("InventoryService.reserveStock", "func reserveStock("),
        ("InventoryService.count", "func count("),
        ("describe", "func describe("),
    ],
}

# The declaration line each member chunk of the main class carries as its context.
CLASS_HEADERS: dict[str, tuple[str, str]] = {
    "python": ("Inventory", "class Inventory:"),
    "java": ("InventoryService", "public final class InventoryService {"),
    "javascript": ("Cart", "export class Cart {"),
    "typescript": ("OrderService", "export class OrderService {"),
    "tsx": ("Counter", "export class Counter extends React.Component<Props> {"),
    "rust": ("Store", "impl Store {"),
    "cpp": ("Inventory", "class Inventory {"),
    "c_sharp": ("InventoryService", "public class InventoryService"),
    "php": ("InventoryService", "class InventoryService"),
    "ruby": ("Inventory", "class Inventory"),
    "kotlin": ("InventoryService", "class InventoryService(private val name: String) {"),
    "swift": ("InventoryService", "class InventoryService {"),
}

# Where the chunk that opens each sample ends: the import lines.
LAST_IMPORT: dict[str, str] = {
    "python": "from dataclasses import dataclass",
    "java": "import java.util.Map;",
    "javascript": 'import fs from "fs";',
    "typescript": 'import type { Order } from "./order";',
    "tsx": 'import { useState } from "react";',
    "go": ")",
    "rust": "use std::fmt;",
    "c": '#include "stock.h"',
    "cpp": "#include <string>",
    "c_sharp": "using System.Collections.Generic;",
    "php": "use Psr\\Log\\LoggerInterface;",
    "ruby": 'require_relative "item"',
    "kotlin": "import kotlin.math.max",
    "swift": "import UIKit",
}


# --- helpers -------------------------------------------------------------------------------


def block_text(src: str, signature: str, language: str) -> str:
    """The whole source of the function starting at ``signature`` (signature to its end)."""
    start = src.index(signature)
    line_start = src.rfind("\n", 0, start) + 1
    indent = len(src[line_start:start]) - len(src[line_start:start].lstrip())
    if language == "python":
        lines = src[line_start:].split("\n")
        body = [lines[0]]
        for line in lines[1:]:
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            body.append(line)
        return "\n".join(body).rstrip()
    if language == "ruby":
        end = src.index("\n" + " " * indent + "end", start)
        return src[line_start : end + indent + 4]
    depth = 0
    for i in range(src.index("{", start), len(src)):
        depth += {"{": 1, "}": -1}.get(src[i], 0)
        if depth == 0:
            return src[line_start : i + 1]
    raise AssertionError(f"unbalanced sample around {signature!r}")


def assert_tiles(text: str, chunks: list[Chunk]) -> None:
    """Chunks rebuild the text exactly, are non-empty, and their line numbers are right."""
    assert "".join(c.text for c in chunks) == text
    offset = 0
    for c in chunks:
        assert c.text
        start = text.count("\n", 0, offset) + 1
        end = start + c.text.count("\n") - (1 if c.text.endswith("\n") else 0)
        assert (c.start_line, c.end_line) == (start, end), c
        offset += len(c.text)


def assert_lines(text: str, chunks: list[Chunk]) -> None:
    """For ordinary line endings the range really is the chunk: splitlines agree."""
    lines = text.splitlines()
    for c in chunks:
        assert lines[c.start_line - 1 : c.end_line] == c.text.splitlines(), c


class _Errors(logging.Handler):
    """Collects error records: the rebuild safety net must never have to fire."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def no_errors():
    handler = _Errors()
    code_mod.log.addHandler(handler)
    yield handler
    code_mod.log.removeHandler(handler)
    assert not handler.records, [r.getMessage() for r in handler.records]


def containing(chunks: list[Chunk], piece: str) -> list[Chunk]:
    return [c for c in chunks if piece in c.text]


# --- API ---------------------------------------------------------------------------------------


def test_supported_languages_are_the_fourteen_grammars() -> None:
    assert supported_languages() == sorted(SAMPLES)


def test_empty_input_gives_no_chunks() -> None:
    for language in [*LANGUAGES, "cobol", ""]:
        for mode in ("pack", "symbol"):
            assert chunk_code("", language, mode=mode) == []


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="mode"):
        chunk_code("x = 1\n", "python", mode="lines")


def test_aliases_and_extensions_name_the_language() -> None:
    for alias, language in [("ts", "typescript"), ("C#", "c_sharp"), (".java", "java")]:
        chunks = chunk_code(SAMPLES[language], alias)
        assert f"lang:{language}" in chunks[0].tags
        assert any(c.kind == "class" for c in chunks)


# --- every language: reconstruction, names, whole blocks -------------------------------------


@pytest.mark.parametrize("mode", ["pack", "symbol"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_sample_rebuilds_byte_for_byte(language: str, mode: str, no_errors) -> None:
    text = SAMPLES[language]
    chunks = chunk_code(text, language, mode=mode)
    assert_tiles(text, chunks)
    assert_lines(text, chunks)
    for c in chunks:
        assert c.tags[0] == f"lang:{language}"
        assert c.kind in {"imports", "class", "function", "method", "field", "header", "other"}
        assert not c.oversized


@pytest.mark.parametrize("language", LANGUAGES)
def test_symbol_mode_gives_each_function_whole_in_one_chunk(language: str) -> None:
    text = SAMPLES[language]
    chunks = chunk_code(text, language, mode="symbol")
    for name, signature in SYMBOLS[language]:
        body = block_text(text, signature, language)
        holders = containing(chunks, body)
        assert len(holders) == 1, (name, [c.name for c in chunks])
        assert len(containing(chunks, signature)) == 1
        chunk = holders[0]
        assert chunk.name == name
        short = name.rpartition(".")[2]
        if "." in name:
            assert chunk.kind == "method"
            assert f"class:{name.split('.')[0]}" in chunk.tags
            assert f"method:{short}" in chunk.tags
        else:
            assert chunk.kind == "function"
            assert f"function:{short}" in chunk.tags
        # a symbol chunk holds one symbol: no other listed function shares it
        others = [s for n, s in SYMBOLS[language] if n != name]
        assert not any(s in chunk.text for s in others)


@pytest.mark.parametrize("language", sorted(CLASS_HEADERS))
def test_member_chunks_carry_the_class_header_as_context(language: str) -> None:
    owner, header = CLASS_HEADERS[language]
    chunks = chunk_code(SAMPLES[language], language, mode="symbol")
    members = [c for c in chunks if c.name and c.name.startswith(owner + ".")]
    assert len(members) >= 3
    for c in members:
        assert c.extra["context"] == header
    # the declaration itself is in a chunk, named after the class
    opener = [c for c in chunks if header in c.text]
    assert len(opener) == 1 and opener[0].name == owner


@pytest.mark.parametrize("language", LANGUAGES)
def test_pack_mode_keeps_imports_together_and_classes_whole(language: str) -> None:
    text = SAMPLES[language]
    chunks = chunk_code(text, language)
    first = chunks[0]
    assert first.kind == "imports"
    assert first.text.rstrip().endswith(LAST_IMPORT[language])
    assert not any(c.kind == "imports" for c in chunks[1:])
    if language in CLASS_HEADERS:  # a class that fits the budget is one chunk
        owner, header = CLASS_HEADERS[language]
        holders = containing(chunks, header)
        assert len(holders) == 1
        for name, signature in SYMBOLS[language]:
            if name.startswith(owner + "."):
                assert block_text(text, signature, language) in holders[0].text
    assert not any("context" in c.extra for c in chunks)  # nothing had to be split


def test_decorators_annotations_and_doc_comments_stay_with_their_block() -> None:
    py = chunk_code(PY, "python", mode="symbol")
    assert "@property\n    def total(self)" in containing(py, "def total(")[0].text
    cls = containing(py, "class Inventory:")[0]
    assert "# Keeps the stock of one warehouse.\n@dataclass\nclass Inventory:" in cls.text
    java = chunk_code(JAVA, "java", mode="symbol")
    assert "/** Reserve some units. */\n    @Override" in containing(java, "reserveStock(")[0].text
    rust = chunk_code(RUST, "rust", mode="symbol")
    assert "/// Holds the stock.\n#[derive(Debug, Default)]\npub struct Store" in rust[1].text
    assert rust[1].kind == "class" and rust[1].name == "Store"
    ts = chunk_code(TS, "typescript", mode="symbol")
    assert (
        "@Injectable()\nexport class OrderService" in containing(ts, "class OrderService")[0].text
    )


def test_commonjs_require_counts_as_an_import() -> None:
    text = 'const fs = require("fs");\nconst path = require("path");\n\nfunction main() {\n  return fs;\n}\n'
    chunks = chunk_code(text, "javascript")
    assert [c.kind for c in chunks] == ["imports", "function"]
    assert chunks[1].name == "main"


def test_data_only_types_stay_whole_in_symbol_mode() -> None:
    chunks = chunk_code(SWIFT, "swift", mode="symbol")
    item = containing(chunks, "struct Item {")[0]
    assert item.kind == "class" and item.name == "Item"
    assert "let qty: Int\n}" in item.text


def test_namespaces_are_transparent() -> None:
    chunks = chunk_code(CSHARP, "c_sharp", mode="symbol")
    names = [c.name for c in chunks]
    assert "InventoryService.ReserveStock" in names
    assert "Helpers.Describe" in names
    assert chunks[1].kind == "header" and chunks[1].name == "Shop.Inventory"


def test_pack_mode_packs_small_blocks_within_target() -> None:
    text = "\n\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(40))
    chunks = chunk_code(text, "python", target_tokens=60, max_tokens=100)
    assert_tiles(text, chunks)
    assert 1 < len(chunks) < 40
    for c in chunks:
        assert count_tokens(c.text) <= 60
        assert c.kind == "function"
        assert c.name == c.extra["symbols"][0]
    symbol = chunk_code(text, "python", mode="symbol")
    assert [c.name for c in symbol] == [f"f{i}" for i in range(40)]


# --- oversized blocks ----------------------------------------------------------------------

BIG_CLASS: dict[str, tuple[str, str, str, str]] = {
    # language: (header line, method template, closing text, method indent)
    "python": (
        "class Big:",
        "    def m{i}(self, x):\n        total = x + {i}\n        return total * 2\n\n",
        "",
        "",
    ),
    "java": (
        "public final class Big {",
        "    public int m{i}(int x) {\n        int total = x + {i};"
        "\n        return total * 2;\n    }\n\n",
        "}\n",
        "",
    ),
    "javascript": (
        "class Big {",
        "  m{i}(x) {\n    const total = x + {i};\n    return total * 2;\n  }\n\n",
        "}\n",
        "",
    ),
    "typescript": (
        "export class Big {",
        "  m{i}(x: number): number {\n    const total = x + {i};\n    return total * 2;\n  }\n\n",
        "}\n",
        "",
    ),
    "c_sharp": (
        "public class Big",
        "    public int m{i}(int x)\n    {\n        var total = x + {i};"
        "\n        return total * 2;\n    }\n\n",
        "}\n",
        "{\n",
    ),
    "cpp": (
        "class Big {",
        "  int m{i}(int x) {\n    int total = x + {i};\n    return total * 2;\n  }\n\n",
        "};\n",
        "",
    ),
    "kotlin": (
        "class Big {",
        "    fun m{i}(x: Int): Int {\n        val total = x + {i}"
        "\n        return total * 2\n    }\n\n",
        "}\n",
        "",
    ),
    "swift": (
        "class Big {",
        "    func m{i}(x: Int) -> Int {\n        let total = x + {i}"
        "\n        return total * 2\n    }\n\n",
        "}\n",
        "",
    ),
    "php": (
        "class Big",
        "    public function m{i}($x)\n    {\n        $total = $x + {i};"
        "\n        return $total * 2;\n    }\n\n",
        "}\n",
        "{\n",
    ),
    "ruby": (
        "class Big",
        "  def m{i}(x)\n    total = x + {i}\n    total * 2\n  end\n\n",
        "end\n",
        "",
    ),
    "rust": (
        "impl Big {",
        "    fn m{i}(&self, x: i32) -> i32 {\n        let total = x + {i};"
        "\n        total * 2\n    }\n\n",
        "}\n",
        "",
    ),
}


def big_class(language: str, n: int = 40) -> str:
    header, method, closing, opener = BIG_CLASS[language]
    prefix = "<?php\n" if language == "php" else ""
    body = "".join(method.replace("{i}", str(i)) for i in range(n))
    comment = "#" if language in ("python", "ruby") else "//"
    return f"{prefix}{comment} The big one.\n{header}\n{opener}{body}{closing}\nlast = 1\n"


@pytest.mark.parametrize("language", sorted(BIG_CLASS))
def test_oversized_class_is_split_per_member_with_context(language: str, no_errors) -> None:
    text = big_class(language)
    header = BIG_CLASS[language][0]
    assert count_tokens(text) > 450  # well over max_tokens=300
    chunks = chunk_code(text, language, target_tokens=150, max_tokens=300)
    assert_tiles(text, chunks)
    assert_lines(text, chunks)
    assert len(chunks) >= 5
    assert all(not c.oversized and count_tokens(c.text) <= 300 for c in chunks)
    for i in range(40):
        holders = containing(chunks, f"m{i}(")
        assert len(holders) == 1
        chunk = holders[0]
        assert chunk.extra["context"] == header
        assert f"method:m{i}" in chunk.tags and "class:Big" in chunk.tags
        assert f"Big.m{i}" in chunk.extra["symbols"]
    assert len(containing(chunks, header)) == 1
    symbol = chunk_code(text, language, target_tokens=150, max_tokens=300, mode="symbol")
    assert_tiles(text, symbol)
    methods = [c for c in symbol if c.kind == "method"]
    assert [c.name for c in methods] == [f"Big.m{i}" for i in range(40)]
    assert all(c.extra["context"] == header for c in methods)


def test_oversized_single_function_is_kept_whole_and_flagged() -> None:
    body = "".join(f"    value_{i} = compute({i}, 'a fairly long argument')\n" for i in range(300))
    text = f"import os\n\n\ndef giant():\n{body}    return 0\n\n\ndef small():\n    return 1\n"
    for mode in ("pack", "symbol"):
        chunks = chunk_code(text, "python", target_tokens=200, max_tokens=400, mode=mode)
        assert_tiles(text, chunks)
        giant = containing(chunks, "def giant():")
        assert len(giant) == 1 and giant[0].oversized and giant[0].kind == "function"
        assert "    return 0\n" in giant[0].text and "value_299" in giant[0].text
        assert not containing(chunks, "def small():")[0].oversized


def test_oversized_method_inside_a_split_class() -> None:
    lines = "".join(f'        int v{i} = compute({i}, "argument");\n' for i in range(200))
    text = (
        "class Host {\n    void tiny() {\n        return;\n    }\n\n"
        f"    void huge() {{\n{lines}    }}\n}}\n"
    )
    chunks = chunk_code(text, "java", target_tokens=100, max_tokens=200)
    assert_tiles(text, chunks)
    huge = containing(chunks, "void huge()")[0]
    assert huge.oversized and huge.name == "Host.huge" and huge.extra["context"] == "class Host {"
    assert not containing(chunks, "void tiny()")[0].oversized


# --- robustness ------------------------------------------------------------------------------

BROKEN: dict[str, str] = {
    "python": "def broken(:\n    return [1, 2\n\nclass X(\n    def ok(self):\n        pass\n",
    "java": "public class A {\n  void f( {\n    int x = ;\n  }\n  @@@ ??? {{{\n",
    "javascript": "function f( {\n  return {a: };\n}\nclass { ]\n",
    "typescript": "export class A<T {\n  m(): { return 1 }\n}}}\nlet x: = 3\n",
    "tsx": "const A = () => <div><span></div>;\nexport function B( { return <; }\n",
    "go": "package main\nfunc (s *) X( {\n\treturn\n}\ntype struct {\n",
    "rust": "fn f( -> {\n    let x = ;\n}\nimpl {\n    fn g(&self) {\n",
    "c": '#include <stdio.h\nint main( {\n  printf("hi";\n}\nstruct { int a\n',
    "cpp": "namespace {\nclass A {\n public:\n  void f() {\n};\ntemplate <class T\n",
    "c_sharp": "namespace X {\n  class Y {\n    void Z( {\n  }\n",
    "php": "<?php\nclass A {\n  public function f( {\n    $x = ;\n  }\n",
    "ruby": "class A\n  def f(\n    x = \n  end\n\ndef g\n",
    "kotlin": "class A {\n  fun f( {\n    val x = \n  }\n",
    "swift": "class A {\n  func f( {\n    let x = \n  }\n",
}


@pytest.mark.parametrize("mode", ["pack", "symbol"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_syntax_errors_still_rebuild(language: str, mode: str, no_errors) -> None:
    for text in (BROKEN[language], SAMPLES[language][: len(SAMPLES[language]) // 2] + "}}}{{{)(\n"):
        chunks = chunk_code(text, language, mode=mode, target_tokens=20, max_tokens=40)
        assert_tiles(text, chunks)


@pytest.mark.parametrize("language", LANGUAGES)
def test_deep_nesting_does_not_recurse(language: str, no_errors) -> None:
    texts = [
        "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n",
        "void f() " + "{" * 5000 + "}" * 5000 + "\n",
        "class A {\n" * 2000 + "}\n" * 2000,
        "[" * 5000,
    ]
    for text in texts:
        for mode in ("pack", "symbol"):
            chunks = chunk_code(text, language, mode=mode, target_tokens=50, max_tokens=100)
            assert_tiles(text, chunks)


@pytest.mark.parametrize("language", LANGUAGES)
def test_crlf_and_missing_final_newline(language: str, no_errors) -> None:
    lf = chunk_code(SAMPLES[language], language, mode="symbol")
    text = SAMPLES[language].replace("\n", "\r\n")
    chunks = chunk_code(text, language, mode="symbol")
    assert_tiles(text, chunks)
    assert_lines(text, chunks)
    assert [(c.name, c.kind, c.start_line, c.end_line) for c in chunks] == [
        (c.name, c.kind, c.start_line, c.end_line) for c in lf
    ]
    for member in chunks:
        assert "\r" not in member.extra.get("context", "")
    stripped = SAMPLES[language].rstrip("\n")
    assert_tiles(stripped, chunk_code(stripped, language))
    assert_tiles(stripped + "\r\n", chunk_code(stripped + "\r\n", language))


@pytest.mark.parametrize("language", LANGUAGES)
def test_non_ascii_and_tabs(language: str, no_errors) -> None:
    text = SAMPLES[language].replace("stock", "stöck_ñ").replace("    ", "\t")
    text = (
        "// Ünïcödé ✓ 日本語 😀\n" + text
        if language not in ("python", "ruby")
        else ("# Ünïcödé ✓ 日本語 😀\n" + text)
    )
    if language == "php":
        text = SAMPLES[language].replace("stock", "stöck_ñ")
    for mode in ("pack", "symbol"):
        chunks = chunk_code(text, language, mode=mode)
        assert_tiles(text, chunks)
        assert_lines(text, chunks)


def test_unsupported_language_falls_back_to_blank_line_blocks(no_errors) -> None:
    paragraph = "       MOVE A TO B.\n       ADD 1 TO COUNTER.\n"
    text = "\n".join([paragraph] * 30) + "\n\n\n"
    chunks = chunk_code(text, "cobol", target_tokens=40, max_tokens=80)
    assert_tiles(text, chunks)
    assert 1 < len(chunks) < 30
    for c in chunks:
        assert c.kind == "other" and c.name is None and c.tags == ["lang:cobol"]
        assert count_tokens(c.text) <= 40
        assert c.text.startswith("       MOVE")


def test_fallback_flags_a_paragraph_larger_than_max() -> None:
    text = "x" * 2000 + "\n\nsmall\n"
    chunks = chunk_code(text, "brainfuck", target_tokens=50, max_tokens=100)
    assert_tiles(text, chunks)
    assert chunks[0].oversized and not chunks[-1].oversized


def test_parser_failure_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self, root):
        raise RuntimeError("grammar surprise")

    monkeypatch.setattr(code_mod._Chunker, "run", boom)
    chunks = chunk_code(JAVA, "java")
    assert_tiles(JAVA, chunks)
    assert all(c.kind == "other" for c in chunks)


def test_huge_file_skips_the_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(code_mod, "MAX_PARSE_BYTES", 100)
    chunks = chunk_code(GO, "go", target_tokens=60, max_tokens=120)
    assert_tiles(GO, chunks)
    assert all(c.kind == "other" for c in chunks)


def test_large_file_is_chunked_quickly_and_exactly(no_errors) -> None:
    text = "\n".join(SAMPLES["java"].split("\n", 8)[8] for _ in range(200))
    chunks = chunk_code(text, "java", mode="symbol")
    assert_tiles(text, chunks)
    assert sum(c.name == "InventoryService.reserveStock" for c in chunks) == 200


# --- property: any text, any language, stays byte-exact ------------------------------------

_PIECES = st.sampled_from(
    [
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        ":",
        "\n",
        "\r\n",
        "\r",
        "\t",
        "  ",
        "\n\n",
        "class A",
        "def f():",
        "fn g() ",
        "func h() ",
        "import x",
        "#include <a>",
        "namespace N ",
        "impl T ",
        "end",
        "//",
        "/*",
        "*/",
        "#",
        '"',
        "'",
        "`",
        "@dec",
        "é",
        "😀",
        "日本",
        "\x00",
        "\u2028",
        "\x0c",
        "$",
        "<?php",
        "=>",
        "->",
    ]
)
_TEXT = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(_PIECES, st.text(max_size=5)), max_size=60).map("".join),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=_TEXT,
    language=st.sampled_from([*LANGUAGES, "cobol"]),
    mode=st.sampled_from(["pack", "symbol"]),
    target=st.integers(min_value=1, max_value=60),
    extra=st.integers(min_value=0, max_value=60),
)
def test_property_any_text_rebuilds_exactly(
    text: str, language: str, mode: str, target: int, extra: int
) -> None:
    handler = _Errors()
    code_mod.log.addHandler(handler)
    try:
        chunks = chunk_code(
            text, language, mode=mode, target_tokens=target, max_tokens=target + extra
        )
    finally:
        code_mod.log.removeHandler(handler)
    assert_tiles(text, chunks)
    assert not handler.records
    assert (chunks == []) == (text == "")


@settings(max_examples=60, deadline=None)
@given(
    language=st.sampled_from(LANGUAGES),
    cut=st.integers(min_value=0, max_value=10_000),
    junk=st.text(max_size=20),
)
def test_property_damaged_samples_rebuild_exactly(language: str, cut: int, junk: str) -> None:
    src = SAMPLES[language]
    cut %= len(src)
    text = src[:cut] + junk + src[cut + len(junk) // 2 :]
    for mode in ("pack", "symbol"):
        assert_tiles(text, chunk_code(text, language, mode=mode, target_tokens=30, max_tokens=50))


def test_chunks_never_cut_inside_a_line() -> None:
    # cuts happen at line starts only, so each chunk but the last ends with a newline
    for language in LANGUAGES:
        chunks = chunk_code(SAMPLES[language], language, mode="symbol")
        assert all(c.text.endswith("\n") for c in chunks)
        assert re.search(r"\S", chunks[0].text)
