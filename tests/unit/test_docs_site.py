"""The documentation: a short README, pages under 450 lines, and a site whose strict build fails on a broken link.

The site is built (as ``make docs`` builds it) on a copy of docs/, bench/, mkdocs.yml and the hook, with the
rest of the repository linked in, plus one made-up study: the real pages and studies must build cleanly,
the made-up study must be published and linked, and broken links added to the copy must fail the build.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _hooks():
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "scripts" / "mkdocs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_is_short_and_links_to_pages_that_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    assert "make demo" in readme and "make test" in readme
    targets = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(targets) >= 8, targets
    for target in targets:
        assert (ROOT / target).is_file(), f"the README links to {target}, which does not exist"


def test_every_docs_page_is_under_450_lines_and_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in (ROOT / "docs").glob("*.md"):
        assert len(page.read_text().splitlines()) <= 450, page.name
        assert f" {page.name}" in nav, f"docs/{page.name} is not in mkdocs.yml's nav"


def test_links_are_rewritten_from_repository_paths_to_site_paths(tmp_path: Path) -> None:
    hooks = _hooks()
    (tmp_path / "backend").mkdir()
    (tmp_path / "backend" / "app.py").write_text("")
    pages = {"BENCHMARKS.md": "studies/summary.md", "bench/toy/README.md": "studies/toy/README.md"}
    md = "[s](../BENCHMARKS.md#top) [t](../bench/toy) [c](../backend/app.py) [x](../nope.md) [w](https://a.b/c)"
    out = hooks.rewrite_links(md, "benchmarks.md", pages, root=tmp_path)
    assert (
        out
        == "[s](studies/summary.md#top) [t](studies/toy/README.md) c (`backend/app.py`) [x](../nope.md) [w](https://a.b/c)"
    )
    # from a published page: its repository folder is where its links start
    out = hooks.rewrite_links("[back](../../BENCHMARKS.md) [d](../../docs/cli.md)", "studies/toy/README.md", pages)
    assert out == "[back](../summary.md) [d](../../cli.md)"
    assert hooks.github_slug("Why `both` is the default: measured, not assumed") == (
        "why-both-is-the-default-measured-not-assumed"
    )


COPIED = {"docs", "scripts", "bench", "mkdocs.yml"}
"""What a test may change: copied. The rest of the repository is linked, read-only, as the pages see it."""
NOT_LINKED = {".git", ".venv", "site", "node_modules", "frontend", "runs", "xmd-data", "test-output"}


def _site(tmp_path: Path) -> Path:
    """The repository's docs set-up, plus one made-up study that links to the summary, a docs page and itself."""
    for entry in ROOT.iterdir():
        if entry.name in COPIED and entry.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(entry, tmp_path / entry.name, ignore=ignore)
        elif entry.name in COPIED:
            shutil.copy(entry, tmp_path / entry.name)
        elif entry.name not in NOT_LINKED:
            (tmp_path / entry.name).symlink_to(entry)
    study = tmp_path / "bench" / "toy"
    (study / "results").mkdir(parents=True)
    (study / "results" / "toy.json").write_text("{}")
    (study / "README.md").write_text(
        "# Is the toy fast?\n\n[the summary](../../BENCHMARKS.md), [the guide](../../docs/guide.md), "
        "[raw](results/toy.json), [how](#protocol)\n\n## Protocol\n"
    )
    return tmp_path


def _build(root: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml")]
    return subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _site(tmp_path_factory.mktemp("site"))


def test_strict_build_publishes_the_studies_and_their_links_resolve(site: Path) -> None:
    done = _build(site)
    assert done.returncode == 0, done.stderr
    out = site / "site"
    assert (out / "studies" / "toy" / "index.html").is_file() and (out / "studies" / "summary" / "index.html").is_file()
    assert (out / "studies" / "toy" / "results" / "toy.json").is_file()
    bench_page = (out / "benchmarks" / "index.html").read_text()
    assert "Is the toy fast?" in bench_page and 'href="../studies/toy/"' in bench_page  # the generated table
    assert 'href="studies/toy/">Is the toy fast?<' in (out / "index.html").read_text()  # the nav lists the study


BROKEN = [
    ("docs/cli.md", "\nSee [gone](gone.md).\n", "gone.md"),
    ("docs/guide.md", "\nSee [gone](../bench/gone/README.md).\n", "gone/README.md"),
    ("docs/guide.md", "\nSee [a heading](cli.md#no-such-heading).\n", "no-such-heading"),
    ("bench/toy/README.md", "\nSee [x](../../docs/missing.md).\n", "missing.md"),
]
"""(page, broken link appended to it, what the build's warning must name): a page, a study, an anchor."""


def test_strict_build_fails_on_each_broken_link(tmp_path: Path) -> None:
    root = _site(tmp_path)
    for page, bad, _ in BROKEN:
        with (root / page).open("a") as f:
            f.write(bad)
    done = _build(root)
    assert done.returncode != 0
    for page, _, named in BROKEN:
        assert named in done.stderr, f"the build did not report the broken link in {page}: {done.stderr}"
    assert f"Aborted with {len(BROKEN)} warnings in strict mode" in done.stdout + done.stderr  # no others


def _docs_text() -> str:
    return "".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


def test_every_flag_of_every_command_is_documented() -> None:
    import argparse

    from xmd.cli import build_parser

    docs, missing = _docs_text(), []

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    walk(subparser, f"{name} {sub}")
            missing.extend(
                f"{name} {o}"
                for o in action.option_strings
                if o.startswith("--") and o not in ("--help", "--version")
                if not re.search(rf"(?<![\w-]){o}(?![\w-])", docs)
            )

    walk(build_parser(), "xmd")
    assert not missing, f"flags no docs page names: {missing}"


INTERNAL_VARIABLES = {"XMD_PARENT_PID", "XMD_WORKER_READY_FILE", "XMD_TEST_REDIS_URL"}
"""Set by xmd for its own child processes, or by the tests: not for users."""


def test_every_environment_variable_is_documented() -> None:
    used = set()
    for path in [*(ROOT / "backend").rglob("*.py"), *(ROOT / "workers").rglob("*.py")]:
        used |= set(re.findall(r"XMD_[A-Z0-9_]+", path.read_text()))
    docs = _docs_text()
    missing = sorted(v for v in used - INTERNAL_VARIABLES if f"`{v}`" not in docs)
    assert not missing, f"variables no docs page names: {missing}"


def test_every_file_a_page_names_exists() -> None:
    """A path in backticks (``xmd/http/params.py``, ``bench/<study>/...``) must still be there after a move."""
    gone = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for token in re.findall(r"`([^`\s]+)`", page.read_text()):
            path = token.split("#")[0]
            if "/" not in path or "<" in path or path.startswith("/") or ":" in path:
                continue
            if not re.search(r"\.(py|md|json|sh|ts|yml|toml|png)$|/$", path):
                continue
            if not any(list(base.glob(path)) for base in (ROOT, ROOT / "backend", ROOT / "backend" / "xmd")):
                gone.append(f"{page.name}: {token}")
    assert not gone, f"pages name files that do not exist: {gone}"


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_python_name_a_page_gives_resolves() -> None:
    """``xmd.core.simulate.merge_feedback`` on a page must import: a moved function strands no reader."""
    names = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        names |= set(re.findall(r"`((?:xmd|workers)(?:\.[A-Za-z_]\w*)+)(?:\([^`]*\))?`", page.read_text()))
    names.discard("xmd.json")  # the file a model folder carries, not a module
    assert len(names) >= 10
    gone = sorted(n for n in names if not _resolves(n))
    assert not gone, f"pages name Python objects that do not exist: {gone}"
