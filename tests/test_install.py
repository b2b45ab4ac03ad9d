"""hwcheck as another repository installs and runs it: the GitHub Action (``action.yml``), the
pre-commit hook (``.pre-commit-hooks.yaml``) and the install commands the docs show.

Every ``hwcheck`` command line they run must use options the click commands have; every input
of the action must be used; every version they name must be ``checker.__version__`` (the
wheel's version, ``[tool.setuptools.dynamic]``), and every extra one that ``pyproject.toml``
defines. The wheel itself is built, checked and run by ``.ci/package`` (``.ci/run``), not here.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from packaging.requirements import Requirement
from packaging.utils import parse_wheel_filename
from packaging.version import Version

import checker
from checker.cli import cli

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
INSTALL_PAGE = ROOT / "docs" / "getting-started" / "install.md"
TUTORIAL = ROOT / "docs" / "tutorials" / "gate-check.md"
# the files that may tell another repository how to install and run hwcheck
INSTALL_TEXTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted((ROOT / "examples" / "ci").glob("*.yml")),
    ROOT / "action.yml",
    ROOT / ".pre-commit-hooks.yaml",
]
VERSION_NAMED = re.compile(r"(?:\bv|\bhwcheck[- ]|hwcheck, version )(\d+\.\d+\.\d+)\b")
PIP_INSTALL = re.compile(r"pip\s+install\s+((?:\"[^\"]+\"|'[^']+'|[^\s`]+))")


def option_names(command: list[str]) -> list[str]:
    """The ``--options`` of one ``hwcheck`` command line (``--name=value`` as ``--name``)."""
    return [word.split("=", 1)[0] for word in command if word.startswith("-")]


def known_options(command: list[str]) -> set[str]:
    """The options click knows for ``hwcheck [SUBCOMMAND]``: the group's, or the command's."""
    params = (
        cli.commands[command[1]].params
        if len(command) > 1 and command[1] in cli.commands
        else cli.params
    )
    names = {name for p in params for name in (*p.opts, *p.secondary_opts)}
    return names | {"-h", "--help"}


def hwcheck_lines(script: str) -> list[list[str]]:
    """Each command line of a shell ``script`` that runs ``hwcheck`` (continuations joined)."""
    lines = script.replace("\\\n", " ").splitlines()
    return [
        words for line in lines if (words := shlex.split(line, comments=True))[:1] == ["hwcheck"]
    ]


STEPS = ACTION["runs"]["steps"]
ACTION_COMMANDS = [
    (step, words) for step in STEPS if "run" in step for words in hwcheck_lines(step["run"])
]


def test_the_action_is_composite_and_its_inputs_have_the_documented_defaults():
    assert ACTION["runs"]["using"] == "composite"
    defaults = {name: spec.get("default") for name, spec in ACTION["inputs"].items()}
    assert defaults == {
        "config": "pyproject.toml",
        "hwcheck": "",
        "extras": "",
        "python-version": "3.11",
        "junit-xml": "hwcheck-gate.xml",
        "reports": "hwcheck-reports",
        "artifact-name": "hwcheck-gate",
    }
    assert STEPS[0]["uses"].startswith("actions/setup-python@")
    assert STEPS[0]["with"]["python-version"] == "${{ inputs.python-version }}"
    upload = next(s for s in STEPS if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()" and upload["with"]["name"] == "${{ inputs.artifact-name }}"
    assert upload["with"]["path"].splitlines() == [
        "${{ inputs.junit-xml }}",
        "${{ inputs.reports }}",
    ]


def test_every_input_of_the_action_is_used_and_every_input_used_is_declared():
    used = set(re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", yaml.safe_dump(STEPS)))
    assert used == set(ACTION["inputs"])


def test_the_action_runs_the_gate_on_its_inputs_with_options_the_cli_has():
    commands = [words for _, words in ACTION_COMMANDS]
    assert commands == [
        ["hwcheck", "--version"],
        [
            "hwcheck",
            "gate",
            "--config",
            "$HWCHECK_CONFIG",
            "--junit-xml",
            "$HWCHECK_JUNIT",
            "--out",
            "$HWCHECK_REPORTS",
        ],
    ]
    for step, words in ACTION_COMMANDS:
        assert set(option_names(words)) <= known_options(words), words
        for variable in re.findall(r"\$(\w+)", " ".join(words)):
            assert step["env"][variable].startswith("${{ inputs."), variable
    gate_step = next(step for step, words in ACTION_COMMANDS if words[1:2] == ["gate"])
    assert gate_step["env"] == {
        "HWCHECK_CONFIG": "${{ inputs.config }}",
        "HWCHECK_JUNIT": "${{ inputs.junit-xml }}",
        "HWCHECK_REPORTS": "${{ inputs.reports }}",
    }


def test_the_pre_commit_hook_runs_the_gate_once_through_the_projects_script():
    assert [hook["id"] for hook in HOOKS] == ["hwcheck-gate"]
    hook = HOOKS[0]
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    words = shlex.split(hook["entry"])
    assert words == ["hwcheck", "gate"]
    assert words[0] in PYPROJECT["project"]["scripts"]
    assert set(option_names(words)) <= known_options(words)


@pytest.mark.parametrize("path", INSTALL_TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_version_named_for_an_install_is_checker_version(path):
    named = set(VERSION_NAMED.findall(path.read_text()))
    assert named <= {checker.__version__}, f"{path.name} names {named}"


def test_the_install_page_and_the_tutorial_name_the_version():
    for page in (INSTALL_PAGE, TUTORIAL):
        assert checker.__version__ in VERSION_NAMED.findall(page.read_text()), page.name


def test_the_documented_pip_installs_name_hwcheck_this_version_and_real_extras():
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    seen, bare = [], []
    for path in INSTALL_TEXTS:
        for argument in PIP_INSTALL.findall(path.read_text()):
            target = argument.strip("\"'")
            if target == "hwcheck":
                bare.append(path)
            if target == "hwcheck" or "hwcheck" not in target or target.startswith(("-", ".")):
                continue  # a clone's pip install -e '.[test]', or a bare name: below
            if " @ " in target:
                requirement = Requirement(target)
                assert requirement.name == "hwcheck" and requirement.extras <= extras, target
                assert requirement.url is not None and requirement.url.endswith(
                    f"@v{checker.__version__}"
                )
            else:
                wheel, _, named = target.partition("[")
                name, version, _, _ = parse_wheel_filename(wheel)
                assert (name, version) == ("hwcheck", Version(checker.__version__)), target
                assert set(named.rstrip("]").split(",")) - {""} <= extras, target
            seen.append(target)
    assert any(" @ git+" in t for t in seen) and any(t.endswith("]") for t in seen)
    assert any(".whl" in t for t in seen)
    # hwcheck is not on PyPI: the only bare `pip install hwcheck` is the sentence saying so
    assert bare == [INSTALL_PAGE]
    assert (
        "hwcheck is not on PyPI: `pip install hwcheck` does\nnot install it" in bare[0].read_text()
    )


def test_version_comes_from_checker_and_hwcheck_prints_it():
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "checker.__version__"}
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"hwcheck, version {checker.__version__}\n"


def test_every_data_file_of_the_packages_is_package_data():
    """A file in a package that is not Python and that no ``[tool.setuptools.package-data]``
    glob names is left out of the wheel (``.ci/package`` fails on it, after a build); this
    says so without one. setuptools globs each pattern in its package's folder."""
    packaged = {
        path
        for package, patterns in PYPROJECT["tool"]["setuptools"]["package-data"].items()
        for pattern in patterns
        for path in (ROOT / package.replace(".", "/")).glob(pattern)
    }
    data = {
        path
        for top in ("checker", "spec", "invariants")
        for path in (ROOT / top).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    }
    assert sorted(str(p.relative_to(ROOT)) for p in data - packaged) == []


def test_the_workflow_example_uses_the_action_with_inputs_it_has_and_is_in_the_tutorial():
    path = ROOT / "examples" / "ci" / "github-action.yml"
    steps = yaml.safe_load(path.read_text())["jobs"]["gate"]["steps"]
    uses = [step for step in steps if step.get("uses", "").startswith("OWNER/hwcheck@")]
    assert [step["uses"] for step in uses] == [f"OWNER/hwcheck@v{checker.__version__}"]
    assert set(uses[0]["with"]) <= set(ACTION["inputs"])
    assert steps[0]["uses"].startswith("actions/checkout@")  # the action reads the checkout
    assert path.read_text().strip() in TUTORIAL.read_text()


def test_the_tutorials_pre_commit_config_names_the_hook_at_this_version():
    blocks = re.findall(r"```yaml\n(.*?)```", TUTORIAL.read_text(), re.DOTALL)
    configs = [yaml.safe_load(b) for b in blocks if "hwcheck-gate" in b and "repos:" in b]
    assert len(configs) == 1
    (repo,) = configs[0]["repos"]
    assert repo["rev"] == f"v{checker.__version__}" and repo["repo"].endswith("/hwcheck")
    assert [hook["id"] for hook in repo["hooks"]] == [hook["id"] for hook in HOOKS]
