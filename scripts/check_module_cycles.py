#!/usr/bin/env python3
"""Fails when the modules of a crate import each other in a circle.

For each `src/` given, every file is a module; a file that names `crate::a::b` (in a `use` or
inline) or `super::x` depends on the deepest module of that path that is a file of the crate.
Test modules (`#[cfg(test)] mod tests { .. }` at the end of a file) are left out: tests may
reach anywhere. Prints each circle with the names that tie it, and exits 1 if there is one.

Usage: scripts/check_module_cycles.py mrtr-runtime/src [mrtr-macros/src ..]
"""
import re
import sys
from pathlib import Path

PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\}\s*;", re.S)


def module_of(path: Path, root: Path) -> tuple:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


def without_tests(text: str) -> str:
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    return text[: cut.start()] if cut else text


def strip_comments(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def references(text: str):
    """Every (anchor, segments) path the text names, `use` groups expanded one level."""
    for match in USE_GROUP.finditer(text):
        anchor, prefix, group = match.groups()
        base = [s for s in prefix.split("::") if s]
        for item in re.split(r",(?![^{]*\})", group):
            head = item.strip().split("::")[0].split(" as ")[0].strip("{} \n")
            if head and head != "self":
                yield anchor, base + [head]
            elif head == "self":
                yield anchor, base
    for match in PATH.finditer(text):
        anchor, rest = match.groups()
        yield anchor, [s for s in rest.split("::") if s]


def graph(root: Path):
    files = {module_of(p, root): p for p in root.rglob("*.rs")}
    edges = {}
    for module, path in files.items():
        text = strip_comments(without_tests(path.read_text()))
        children = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", text, re.M))
        found = list(references(text))
        # A path that starts at a child module this file declares (`field::Kind`).
        # A parent's `mod`, `use` and `pub use` of its children make it their facade, which is
        # not a dependency; its code calling into a child is.
        code = re.sub(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:use|mod)\b[^;]*;", "", text, flags=re.M)
        for child in children:
            for _ in re.finditer(r"(?<![:\w])" + child + r"::", code):
                found.append(("self", [child]))
        for anchor, segments in found:
            if anchor == "crate":
                base = ()
            elif anchor == "self":
                base = module
            else:
                # `super` of `a/b.rs` and of `a/b/mod.rs` is `a` alike.
                base = module[:-1]
                while segments and segments[0] == "super":
                    base, segments = base[:-1], segments[1:]
            target = base + tuple(segments)
            while target and target not in files:
                target = target[:-1]
            if target != module and target in files and target != ():
                name = segments[len(target) - len(base)] if len(segments) > len(target) - len(base) else "*"
                edges.setdefault(module, {}).setdefault(target, set()).add(name)
    return files, edges


def circles(nodes, edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in nodes:
        if node not in index:
            visit(node)
    return found


def main() -> int:
    failed = False
    for root in map(Path, sys.argv[1:]):
        files, edges = graph(root)
        found = circles(files, edges)
        for component in found:
            failed = True
            print(f"{root}: modules import each other in a circle:")
            for module in component:
                for target, names in sorted(edges.get(module, {}).items()):
                    if target in component:
                        print(f"  {'::'.join(module)} -> {'::'.join(target)}: {', '.join(sorted(names))}")
        if not found:
            print(f"{root}: {len(files)} modules, no circles")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
