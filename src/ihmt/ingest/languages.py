"""File extensions of the programming languages the code chunker parses."""

from __future__ import annotations

from pathlib import PurePath

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".java": "java",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "c_sharp",
    ".php": "php",
    ".rb": "ruby",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
}

# Domain suffix used for code of each language: software.<suffix>
DOMAIN_NAMES: dict[str, str] = {
    "tsx": "typescript",
    "c_sharp": "csharp",
}


def language_for(name: str | None) -> str | None:
    """Language of a file name or extension ('x/Main.java', '.java', 'java'), or None."""
    if not name:
        return None
    suffix = PurePath(name).suffix.lower() if "." in name else "." + name.lower()
    if not suffix and name.startswith("."):
        suffix = name.lower()
    return EXTENSIONS.get(suffix)


def code_domain(language: str) -> str:
    return "software." + DOMAIN_NAMES.get(language, language)
