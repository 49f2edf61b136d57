"""The importers' modules import one another one way only: read from their source with `ast`,
every import among app/importers that runs (at the top of a module or inside a function; not
one under `if TYPE_CHECKING:`, which only a type checker reads) counted, the graph has no
circle (docs/decisions/0036-importer-types.md)."""

import ast
from pathlib import Path

IMPORTERS = Path(__file__).resolve().parents[1] / "app" / "importers"


def module_name(path: Path) -> str:
    """`importers.claude.parse` for app/importers/claude/parse.py, `importers.claude` for its
    __init__.py."""
    parts = path.relative_to(IMPORTERS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def statements(tree: ast.AST):
    """Every node below `tree` except those under `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        test = ast.unparse(node.test) if isinstance(node, ast.If) else ""
        if test in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            yield from (n for other in node.orelse for n in [other, *statements(other)])
            continue
        yield node
        yield from statements(node)


def imported(path: Path, known: set[str]) -> set[str]:
    """The modules of app/importers that the module at `path` imports."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = set()
    for node in statements(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            stem = ".".join([*base, *([node.module] if node.module else [])])
            # `from . import sync` names a module, `from .agent import Agent` a name in one
            for alias in node.names:
                name = f"{stem}.{alias.name}"
                found.add(name if name in known else stem)
        elif isinstance(node, ast.ImportFrom):
            found.add(node.module.removeprefix("nodwyn."))
        elif isinstance(node, ast.Import):
            found.update(alias.name.removeprefix("nodwyn.") for alias in node.names)
    return (found & known) - {here}


def graph() -> dict[str, set[str]]:
    paths = sorted(IMPORTERS.rglob("*.py"))
    known = {module_name(path) for path in paths}
    return {module_name(path): imported(path, known) for path in paths}


def a_circle(edges: dict[str, set[str]]) -> list[str]:
    """One circle of imports, as the modules along it, or [] when there is none."""
    done: set[str] = set()

    def walk(node: str, trail: list[str]) -> list[str]:
        if node in trail:
            return trail[trail.index(node) :] + [node]
        if node in done:
            return []
        for other in sorted(edges.get(node, ())):
            circle = walk(other, [*trail, node])
            if circle:
                return circle
        done.add(node)
        return []

    return next((c for c in (walk(node, []) for node in sorted(edges)) if c), [])


def test_no_module_of_the_importers_imports_itself_through_others():
    assert a_circle(graph()) == []


def test_the_registry_imports_every_agent_and_every_agent_imports_the_interface_not_it():
    edges = graph()
    agents = [f"importers.{name}" for name in ("claude", "codex", "gemini", "copilot", "opencode")]
    agents += [f"importers.{name}" for name in ("aider", "antigravity", "cursor")]
    assert set(agents) <= edges["importers.registry"]
    for agent in agents:
        assert "importers.agent" in edges[agent] and "importers.registry" not in edges[agent]


def test_the_circle_finder_finds_a_circle_of_three():
    assert a_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_an_import_only_a_type_checker_reads_is_no_circle():
    code = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n"
    code += "from .c import C\n"
    nodes = [ast.unparse(n) for n in statements(ast.parse(code)) if isinstance(n, ast.ImportFrom)]
    assert nodes == ["from typing import TYPE_CHECKING", "from .c import C"]
