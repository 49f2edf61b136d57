"""The layout's two counts (issue 39; docs/ARCHITECTURE.md): app/ holds at most 12 modules beside
its packages, and no module imports another that imports it back at run time.

The import graph is read from the source with ast, not by importing: every import statement
counts, at the top of a module or inside a function (a function's import runs when it is
called), except those under `if TYPE_CHECKING:`, which never run. `from package import name`
is an edge to the submodule when `name` is one, else to the package's `__init__`.
"""

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"
TOP_MODULES = 12


def module_name(path: Path, root: Path = APP) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["nodwyn", *parts])


def run_time_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The tree's import statements but those under `if TYPE_CHECKING:` (their else runs)."""
    found = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                for kept in child.orelse:
                    visit_statement(kept)
                continue
            visit_statement(child)

    def visit_statement(node: ast.AST) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        visit(node)

    visit(tree)
    return found


def _type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def import_graph(root: Path = APP) -> dict[str, set[str]]:
    """Each module of the package -> the package's modules it imports at run time."""
    files = {module_name(path, root): path for path in root.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        targets = set()
        for node in run_time_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.add(sub if sub in files else base)
        graph[name] = {target for target in targets if target in files and target != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted({tuple(sorted((a, b))) for a in graph for b in graph[a] if a in graph[b]})


def a_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One chain of imports that comes back to where it started, or [] (depth-first search)."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(name: str) -> list[str]:
        state[name] = "open"
        path.append(name)
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                return path[path.index(other) :] + [other]
            if other not in state and (found := visit(other)):
                return found
        state[name] = "done"
        path.pop()
        return []

    for name in sorted(graph):
        if name not in state and (found := visit(name)):
            return found
    return []


def test_app_holds_at_most_twelve_modules_beside_its_packages():
    modules = sorted(p.name for p in APP.glob("*.py") if p.name != "__init__.py")
    assert len(modules) <= TOP_MODULES, modules


def test_every_package_of_app_has_a_face_saying_what_it_holds():
    for init in APP.rglob("__init__.py"):
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), init


def test_no_module_imports_another_that_imports_it_back():
    assert circles(import_graph()) == []


def test_no_longer_chain_of_imports_comes_back_either():
    assert a_cycle(import_graph()) == []


def test_the_check_finds_a_circle_through_a_function_but_not_through_type_checking(tmp_path):
    (tmp_path / "__init__.py").write_text('"""A package."""\n')
    (tmp_path / "one.py").write_text("from . import two\n")
    (tmp_path / "two.py").write_text("def late():\n    from .one import thing\n")
    (tmp_path / "three.py").write_text("from . import four\n")
    (tmp_path / "four.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from . import three\n"
    )
    assert circles(import_graph(tmp_path)) == [("nodwyn.one", "nodwyn.two")]
    (tmp_path / "two.py").write_text("from . import three\n")
    (tmp_path / "three.py").write_text("def late():\n    from . import one\n")
    graph = import_graph(tmp_path)
    assert circles(graph) == []
    assert a_cycle(graph) == ["nodwyn.one", "nodwyn.two", "nodwyn.three", "nodwyn.one"]
