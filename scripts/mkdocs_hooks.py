"""MkDocs hooks: publish the benchmark studies and the code map, which live beside the code, in the site.

``bench/`` (each study's README, results and figures), ``BENCHMARKS.md`` and ``backend/xmd/README.md`` stay
where a developer looks for them; at build time they are added to the site under ``studies/`` (and
``code-map.md``), globbed afresh, so the site always shows the studies that exist. Their links, and the
docs pages' links out of ``docs/``, are written as repository paths (so they work on a code host too)
and are rewritten here to site paths. A link to a path that is missing from the repository is left as it
is, so ``mkdocs build --strict`` fails on it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
FIXED = {"BENCHMARKS.md": "studies/summary.md", "backend/xmd/README.md": "code-map.md"}
SKIP_PARTS = {"__pycache__", ".pytest_cache"}
SKIP_SUFFIXES = {".pyc", ".tmp"}
LINK = re.compile(r"(!?\[(?P<text>[^\]]*)\]\()(?P<target>[^)\s]+)(\s+\"[^\"]*\")?\)")
STUDIES_MARKER = "<!-- studies -->"


def published(root: Path = ROOT) -> dict[str, str]:
    """Repository path -> site path of every file published from outside docs/."""
    out = {repo: site for repo, site in FIXED.items() if (root / repo).is_file()}
    for path in sorted((root / "bench").rglob("*")):
        if not path.is_file() or SKIP_PARTS & set(path.parts) or path.suffix in SKIP_SUFFIXES:
            continue
        rel = path.relative_to(root).as_posix()
        out[rel] = "studies/" + rel.removeprefix("bench/")
    return out


def studies(root: Path = ROOT) -> list[tuple[str, str]]:
    """(study folder, title) of every ``bench/<study>/README.md``: its first heading, without emphasis marks."""
    found = []
    for readme in sorted((root / "bench").glob("*/README.md")):
        heading = next((ln[2:].strip() for ln in readme.read_text().splitlines() if ln.startswith("# ")), "")
        found.append((readme.parent.name, re.sub(r"[*`]", "", heading) or readme.parent.name))
    return found


def github_slug(value: str, separator: str = "-") -> str:
    """Heading ids as GitHub makes them, so ``#anchors`` written for the repository resolve in the site too."""
    return re.sub(r"[^\w\- ]", "", value.strip().lower()).replace(" ", separator)


def on_config(config: Any) -> Any:
    """GitHub's heading ids; the studies under the Benchmarks entry of the nav."""
    config.mdx_configs.setdefault("toc", {})["slugify"] = github_slug
    for entry in config.nav or []:
        if isinstance(entry, dict) and "Benchmarks" in entry:
            extra: list[Any] = [{"Summary": "studies/summary.md"}] if (ROOT / "BENCHMARKS.md").is_file() else []
            extra += [{"The bench folder": "studies/README.md"}] if (ROOT / "bench" / "README.md").is_file() else []
            extra += [{title: f"studies/{name}/README.md"} for name, title in studies()]
            entry["Benchmarks"] = list(entry["Benchmarks"]) + extra
    return config


def on_files(files: Files, config: Any) -> Files:
    """Add the files published from outside docs/ (pages and the results and figures they link to)."""
    for repo, site in published().items():
        files.append(
            File.generated(config, site, abs_src_path=str(ROOT / repo)),
        )
    return files


def _repo_path(src_uri: str, reverse: dict[str, str]) -> str:
    return reverse.get(src_uri, "docs/" + src_uri)


def rewrite_links(markdown: str, src_uri: str, pages: dict[str, str], root: Path = ROOT) -> str:
    """Repository-relative links of the page at ``src_uri`` -> links between site files."""
    reverse = {site: repo for repo, site in pages.items()}
    here = posixpath.dirname(_repo_path(src_uri, reverse))
    site_dir = posixpath.dirname(src_uri)

    def one(m: re.Match[str]) -> str:
        target = m["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "/")):
            return m[0]
        path, sep, frag = target.partition("#")
        repo = posixpath.normpath(posixpath.join(here, path))
        if repo in pages:
            site = pages[repo]
        elif f"{repo}/README.md" in pages:
            site = pages[f"{repo}/README.md"]
        elif repo.startswith("docs/"):
            site = repo.removeprefix("docs/")
        elif not repo.startswith("..") and (root / repo).exists():
            # in the repository but not in the site (source code, tests): name it, as code
            return f"{m['text']} (`{repo}`)" if not m[0].startswith("!") else m[0]
        else:
            return m[0]  # missing everywhere: left for --strict to report
        new = posixpath.relpath(site, site_dir or ".") + (sep + frag if sep else "")
        return f"{m[1]}{new}{m[4] or ''})"

    out, fence = [], False
    for line in markdown.splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        out.append(line if fence else LINK.sub(one, line))
    return "".join(out)


def studies_table(root: Path = ROOT) -> str:
    rows = [f"| [{title}](studies/{name}/README.md) | `bench/{name}/` |" for name, title in studies(root)]
    return "\n".join(["| study | folder |", "|---|---|", *rows]) if rows else "No study has a README yet."


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Rewrite links to site paths; fill the studies table of the benchmarks page."""
    if STUDIES_MARKER in markdown:
        markdown = markdown.replace(STUDIES_MARKER, studies_table())
    return rewrite_links(markdown, page.file.src_uri, published())
