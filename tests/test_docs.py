"""The documentation stays true to the code and to the measured figures.

- every figure row of ``docs/figures.md`` that names a result file and its keys shows the values that JSON holds
  (rounded as the row rounds them) and the date it was measured, and every file in ``benchmarks/results/`` is named
  there;
- every ``python benchmarks/...`` command in ``docs/*.md`` names a script that exists, with options its argparse
  defines;
- every ``clinrag ...`` command in the docs' code names a subcommand that exists, with options it takes (as
  ``tests/app/test_readme.py`` does for the README);
- no doc and no README line links outside the repository or cites an "issue N" a reader of the repository cannot
  open.

Static reading only (markdown, JSON, the scripts' source, ``--help`` through typer's runner): a few seconds.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
FIGURES = DOCS / "figures.md"
RESULTS = ROOT / "benchmarks" / "results"
BENCHMARKS = ROOT / "benchmarks"


def _doc_paths() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def _param(path: Path) -> Any:
    return pytest.param(path, id=path.name)


# ---------------------------------------------------------------------------------------------------- markdown


def _fenced_lines(text: str) -> list[str]:
    """Logical lines of the fenced code blocks (backslash continuations joined)."""
    lines: list[str] = []
    inside = False
    pending = ""
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            inside = not inside
            pending = ""
            continue
        if not inside:
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    return lines


def _inline_code(text: str) -> list[str]:
    """Inline code spans outside fenced blocks; a span may wrap onto the next line of a paragraph."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return [span.replace("\n", " ") for span in re.findall(r"(?<!`)`([^`]+)`(?!`)", prose)]


def _code_snippets(text: str) -> list[str]:
    return _fenced_lines(text) + _inline_code(text)


def _split_shell(snippet: str) -> list[list[str]]:
    """The simple commands of a shell line: split at ``&&``, ``;`` and ``|``; comments and env prefixes dropped."""
    snippet = re.sub(r"(^|\s)#.*$", "", snippet)
    try:
        words = shlex.split(snippet, posix=True)
    except ValueError:
        words = snippet.split()
    commands: list[list[str]] = [[]]
    for word in words:
        if word in {"&&", "||", ";", "|"}:
            commands.append([])
        else:
            commands[-1].append(word)
    return [command for command in commands if command]


# ---------------------------------------------------------------------------------------------------- (b) benchmarks

BENCH_COMMAND = re.compile(r"(?:^|[\s/])python3?$")


def _benchmark_commands(text: str) -> list[tuple[str, list[str]]]:
    """(script name, words after it) for every ``python [benchmarks/]bench_*.py ...`` in the text's code."""
    found = []
    for snippet in _code_snippets(text):
        if "python" not in snippet or ".py" not in snippet:
            continue
        for words in _split_shell(snippet):
            for i, word in enumerate(words[:-1]):
                script = words[i + 1]
                if BENCH_COMMAND.search(word) and re.fullmatch(r"(?:\S*/)?(?:bench_\w+|run_all)\.py", script):
                    if "/" in script and not script.startswith("benchmarks/"):
                        continue  # another folder's script
                    found.append((script.rsplit("/", 1)[-1], words[i + 2 :]))
    return found


@cache
def _script_options(name: str) -> frozenset[str]:
    """The option strings a benchmark script's argparse defines (read from its source; no import, no run)."""
    tree = ast.parse((BENCHMARKS / name).read_text())
    options = {"-h", "--help"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("-"):
                    options.add(arg.value)
    return frozenset(options)


@pytest.mark.parametrize("doc", _doc_paths(), ids=lambda path: path.name)
def test_benchmark_commands_name_real_scripts_and_options(doc: Path) -> None:
    problems = []
    for script, args in _benchmark_commands(doc.read_text()):
        if not (BENCHMARKS / script).is_file():
            problems.append(f"benchmarks/{script} does not exist")
            continue
        if script == "run_all.py":
            continue  # passes its arguments on to every script
        for option in (arg.split("=", 1)[0] for arg in args if arg.startswith("-")):
            if option not in _script_options(script):
                problems.append(f"benchmarks/{script} has no option {option}")
    assert not problems, f"docs/{doc.name}: " + "; ".join(problems)


def test_benchmark_commands_are_found() -> None:
    commands = [command for path in _doc_paths() for command in _benchmark_commands(path.read_text())]
    assert len(commands) >= 20
    splits = (
        "dev,test,freeform,freeform2,test2,test3,freeform3,test4,freeform4,test5,test6,freeform5,test7,freeform6,"
        "test8,freeform7,test9,freeform8,test10,freeform9,test11,freeform10,test12,freeform11,test13,freeform12,"
        "test14,freeform13,test15,freeform14,test16,freeform15,test17,freeform16,test18,freeform17,test19,freeform18,"
        "test20,freeform19,test21,freeform20,test22,freeform21,test23,freeform22,test24,freeform23,test25,freeform24,"
        "test26,freeform25,test27,freeform26,test28,freeform27,test29,freeform28,"
        "test30,freeform29,test31,freeform30,test32,freeform31,test33,freeform32,test34,freeform33,test35,freeform34,"
        "test36,freeform35,test37,freeform36,test38,freeform37,test39,freeform38,test40,freeform39,test41,freeform40,"
        "test42,freeform41,test43,freeform42,test44,freeform43,test45,freeform44,test46,freeform45,"
        "test47,freeform46,test48,freeform47,test49,freeform48"
    )
    assert ("bench_heldout.py", ["--splits", splits]) in commands


# ---------------------------------------------------------------------------------------------------- (c) clinrag


def _clinrag_commands(text: str) -> list[list[str]]:
    """The words after ``clinrag`` of every command in the text's code (fenced blocks and inline spans)."""
    found = []
    for snippet in _code_snippets(text):
        if "clinrag" not in snippet:
            continue
        for command in _split_shell(snippet.removeprefix("$ ")):
            words = command
            while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
                words = words[1:]  # VAR=value prefixes
            if words and re.fullmatch(r"(?:\S*/)?clinrag", words[0]) and len(words) > 1:
                found.append(words[1:])
    return found


@cache
def _cli() -> Any:
    from clinrag.app.cli import app  # imported here: the other checks do not need the CLI's imports

    return typer.main.get_command(app)


def _is_group(command: Any) -> bool:
    return hasattr(command, "get_command")  # typer vendors click: duck-typed, not isinstance(click.Group)


def _resolve(words: list[str]) -> tuple[list[Any], list[str]]:
    """The commands the words name (the root, its groups, the command) and the words after them."""
    chain = [_cli()]
    for i, word in enumerate(words):
        group = chain[-1]
        if word.startswith("-") or not _is_group(group):
            return chain, words[i:]
        context = group.context_class(group)
        commands = [group.get_command(context, name) for name in re.split(r"[|/]", word)]  # `index snapshot|restore`
        if None in commands:
            return chain, words[i:]
        chain.append(commands[0])
    return chain, []


def _options(command: Any) -> set[str]:
    options = {"--help"}
    for param in command.params:
        if param.param_type_name == "option":
            options.update(param.opts)
            options.update(param.secondary_opts)
    return options


@pytest.mark.parametrize("doc", _doc_paths(), ids=lambda path: path.name)
def test_clinrag_commands_exist_with_their_options(doc: Path) -> None:
    problems = []
    for words in _clinrag_commands(doc.read_text()):
        if not re.fullmatch(r"[a-z][a-z-]*", words[0]):
            continue  # a placeholder or prose, not a command line
        chain, rest = _resolve(words)
        path = " ".join(command.name for command in chain[1:])
        command = chain[-1]
        if len(chain) == 1:
            problems.append(f"clinrag {words[0]}: no such command")
            continue
        if _is_group(command):
            if rest and not rest[0].startswith("-"):  # `clinrag eval` alone names the group; fine
                problems.append(f"clinrag {path}: {rest[0]} is not one of its subcommands")
            continue
        words_after = [word.strip("[]") for word in rest]  # a synopsis writes `[--json]`
        for option in (word.split("=", 1)[0] for word in words_after if re.fullmatch(r"--?[a-zA-Z][\w-]*(=.*)?", word)):
            if option not in _options(command):
                problems.append(f"clinrag {path} has no option {option}")
    assert not problems, f"docs/{doc.name}: " + "; ".join(problems)


def test_clinrag_help_renders_for_every_documented_path() -> None:
    """The paths the docs use answer ``--help`` through typer's runner, as a user would call them."""
    paths = set()
    for doc in _doc_paths():
        for words in _clinrag_commands(doc.read_text()):
            chain, _ = _resolve(words)
            if len(chain) > 1 and not _is_group(chain[-1]):
                paths.add(tuple(command.name for command in chain[1:]))
    assert len(paths) >= 10
    from clinrag.app.cli import app

    runner = CliRunner()
    for path in sorted(paths)[:: max(1, len(paths) // 8)]:  # a sample: rendering help costs ~0.1 s a path
        result = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert result.exit_code == 0, path
        assert "Usage" in result.output, path


def test_clinrag_commands_are_found() -> None:
    commands = [command for path in _doc_paths() for command in _clinrag_commands(path.read_text())]
    assert len(commands) >= 20
    assert any(command[:2] == ["eval", "discharge"] for command in commands)


# ---------------------------------------------------------------------------------------------------- (d) links


def _link_problems(path: Path) -> list[str]:
    text = path.read_text()
    problems = []
    fenced = False
    for lineno, line in enumerate(text.splitlines(), 1):
        fenced ^= line.lstrip().startswith("```")
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL or an anchor in the same page
            resolved = (path.parent / target.split("#", 1)[0]).resolve()
            if not resolved.is_relative_to(ROOT):
                problems.append(f"line {lineno}: links outside the repository: {target}")
            elif not resolved.exists():
                problems.append(f"line {lineno}: links to a missing file: {target}")
        prose = "" if fenced else re.sub(r"\]\([^)]*\)", "]", line)  # a command's `cd x && ../y` is not a link
        for ref in re.findall(r"(?<![\w.])(?:\.\./)+[\w.-][\w./-]*", prose):
            resolved = (path.parent / ref).resolve()
            if not resolved.is_relative_to(ROOT):
                problems.append(f"line {lineno}: names a path outside the repository: {ref}")
        for issue in re.findall(r"\b[Ii]ssues? ?#?\d+(?:[-–]\d+)?\b", line):
            problems.append(f"line {lineno}: cites {issue!r}, which a reader of the repository cannot open")
    return problems


@pytest.mark.parametrize("doc", [_param(path) for path in _doc_paths()])
def test_docs_stay_inside_the_repository(doc: Path) -> None:
    problems = _link_problems(doc)
    assert not problems, f"docs/{doc.name}: " + "; ".join(problems)


def test_readme_stays_inside_the_repository() -> None:
    problems = _link_problems(ROOT / "README.md")
    assert not problems, "README.md: " + "; ".join(problems)


def test_link_check_catches_what_it_should(tmp_path: Path) -> None:
    (tmp_path / "x.md").write_text("see [design](../../shared/design.md) and issue 7\n")
    assert len(_link_problems(tmp_path / "x.md")) == 2


# ---------------------------------------------------------------------------------------------------- (a) figures

NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


def _table_rows(text: str) -> list[dict[str, str]]:
    """Every row of every table, as {header: cell}."""
    rows: list[dict[str, str]] = []
    header: list[str] | None = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if header is None:
            header = [cell.lower() for cell in cells]
        elif not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
            rows.append(dict(zip(header, cells, strict=False)))
    return rows


def _figure_rows() -> list[dict[str, str]]:
    return [row for row in _table_rows(FIGURES.read_text()) if "result" in row]


def _lookup(data: Any, key: str) -> tuple[Any, str | None]:
    """The value at a dotted key, and the ``measured_at`` nearest to it.

    A part may itself hold dots (``lexical_only.at.0.40``: the longest key that exists wins) and a list is indexed by
    position (``nodes.0``) or by a selector (``results[mode=hybrid]``, ``rows[task=diagnosis,split=test]``)."""
    measured = data.get("machine", {}).get("measured_at") if isinstance(data, dict) else None
    rest = key
    while rest:
        if isinstance(data, dict):
            if isinstance(data.get("measured_at"), str):
                measured = data["measured_at"]
            candidates = [k for k in data if rest == k or rest.startswith((k + ".", k + "["))]
            if not candidates:
                raise KeyError(f"{key}: no key at {rest!r}")
            name = max(candidates, key=len)
            data, rest = data[name], rest[len(name) :].removeprefix(".")
        elif isinstance(data, list):
            selector = re.match(r"\[([^\]]+)\]\.?|(\d+)(?:\.|$)", rest)
            if not selector:
                raise KeyError(f"{key}: a list at {rest!r}")
            if selector.group(2) is not None:
                data = data[int(selector.group(2))]
            else:
                wanted = dict(pair.split("=", 1) for pair in selector.group(1).split(","))
                matches = [
                    item for item in data if all(str(item.get(k)).lower() == v.lower() for k, v in wanted.items())
                ]
                if not matches:
                    raise KeyError(f"{key}: nothing matches [{selector.group(1)}]")
                data = matches[0]
            rest = rest[selector.end() :]
        else:
            raise KeyError(f"{key}: {rest!r} under a {type(data).__name__}")
    if isinstance(data, dict) and isinstance(data.get("measured_at"), str):
        measured = data["measured_at"]
    return data, measured


def _shown(value: Any, cell: str) -> bool:
    """Whether the cell shows the value, rounded as the cell rounds it (each item of a list)."""
    if isinstance(value, list):
        return bool(value) and all(_shown(item, cell) for item in value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value).lower() in cell.lower()
    for number in NUMBER.findall(cell):
        decimals = len(number.split(".", 1)[1]) if "." in number else 0
        if abs(float(number.replace(",", "")) - value) <= 0.5 * 10**-decimals + 1e-9:
            return True
    return False


def _references(cell: str) -> tuple[str, list[str]] | None:
    spans = re.findall(r"`([^`]+)`", cell)
    if not spans or not spans[0].endswith(".json"):
        return None
    return spans[0], spans[1:]


def test_every_figure_row_matches_its_result_file() -> None:
    rows = _figure_rows()
    assert len(rows) >= 60, "docs/figures.md: the figure tables have a 'result' column"
    problems = []
    checked = 0
    for row in rows:
        references = _references(row["result"])
        if references is None:
            continue
        name, keys = references
        path = RESULTS / name
        if not path.is_file():
            problems.append(f"{row['what']}: benchmarks/results/{name} does not exist")
            continue
        data = json.loads(path.read_text())
        assert keys, f"{row['what']}: names {name} but no key"
        dates = set()
        for key in keys:
            try:
                value, measured = _lookup(data, key)
            except KeyError as error:
                problems.append(f"{row['what']}: {name} has no {error}")
                continue
            if not _shown(value, f"{row['what']} {row['figure']}"):
                problems.append(f"{row['what']}: {name} {key} is {value!r}, the row says {row['figure']!r}")
            dates.add(measured[:10] if measured else None)
            checked += 1
        for date in dates:
            expected = date or "not recorded"
            if expected not in row.get("measured", ""):
                problems.append(f"{row['what']}: measured {expected} ({name}), the row says {row.get('measured')!r}")
        script = re.search(r"bench_(\w+)\.py", row.get("command", ""))
        benchmark = data.get("benchmark") if isinstance(data, dict) else None
        if script and benchmark and not benchmark.startswith(script.group(1)):
            problems.append(f"{row['what']}: {name} was written by bench_{benchmark}, not {script.group(0)}")
    assert checked >= 100
    assert not problems, "docs/figures.md:\n" + "\n".join(problems)


def _committed_results() -> list[str]:
    """The result files git tracks (a file another piece of work has not committed yet is not asked for)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--", "*.json"], cwd=RESULTS, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        listed = []
    return sorted(Path(name).name for name in listed) or sorted(path.name for path in RESULTS.glob("*.json"))


def test_every_result_file_is_in_the_figures() -> None:
    text = FIGURES.read_text()
    missing = [name for name in _committed_results() if f"`{name}`" not in text]
    assert not missing, f"docs/figures.md does not name {missing}"


def test_figure_check_reads_numbers_as_shown() -> None:
    assert _shown(0.9967, "**0.997**")
    assert _shown(20015, "20,015 notes")
    assert _shown(109.13, "109 s")
    assert not _shown(0.805, "0.803")
    assert not _shown(8.0, "p50 7.96")
    data = {"machine": {"measured_at": "2026-01-02T00:00:00"}, "r": [{"mode": "x", "a.b": {"v": 1}}]}
    assert _lookup(data, "r[mode=x].a.b.v") == (1, "2026-01-02T00:00:00")
    assert _lookup(data, "r.0.mode")[0] == "x"
