"""The steps of a GitHub Actions workflow file, read so a test can run its commands as written.

A reader of the part of YAML our recipes use (the test environment has no YAML library): maps
by indentation, `key: value` scalars, `[a, b]` flow lists, `- ` step items, and `|` block
scalars. What it does not know fails loudly rather than being skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


@dataclass
class Step:
    """One step: its name, the action it uses or the script it runs, and its env."""

    job: str
    name: str
    uses: str = ""
    run: str = ""
    env: dict[str, str] = field(default_factory=dict)
    id: str = ""


@dataclass
class Workflow:
    """The workflow-level env and every job's steps, in order."""

    env: dict[str, str]
    steps: list[Step]

    def step(self, name: str) -> Step:
        """The step called `name`."""
        return next(step for step in self.steps if step.name == name)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _block(lines: list[str], at: int, parent: int) -> tuple[str, int]:
    """The `|` block scalar starting after line `at`; its text and the next line's index."""
    body: list[str] = []
    at += 1
    while at < len(lines) and (not lines[at].strip() or _indent(lines[at]) > parent):
        body.append(lines[at])
        at += 1
    depth = min(_indent(line) for line in body if line.strip())
    return "\n".join(line[depth:] for line in body).rstrip("\n") + "\n", at


def _mapping(lines: list[str], at: int, parent: int) -> tuple[dict[str, str], int]:
    """A nested `KEY: value` map (env) under line `at`."""
    found: dict[str, str] = {}
    at += 1
    while at < len(lines) and (not lines[at].strip() or _indent(lines[at]) > parent):
        if lines[at].strip() and not lines[at].strip().startswith("#"):
            key, _, value = lines[at].strip().partition(":")
            found[key] = _scalar(value)
        at += 1
    return found, at


def read_workflow(path: Path) -> Workflow:
    """Parse the workflow at `path`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    env: dict[str, str] = {}
    steps: list[Step] = []
    job, in_jobs, at = "", False, 0
    while at < len(lines):
        line, depth = lines[at], _indent(lines[at])
        text = line.strip()
        if depth == 0 and text == "env:":
            env, at = _mapping(lines, at, 0)
            continue
        if depth == 0 and text:
            in_jobs = text == "jobs:"
        if in_jobs and depth == 2 and text.endswith(":"):
            job = text[:-1]
        if text.startswith("- name:") and depth == 6:
            steps.append(Step(job, _scalar(text.removeprefix("- name:"))))
        elif steps and depth == 8 and not text.startswith("#"):
            key, _, value = text.partition(":")
            step = steps[-1]
            if key == "run" and value.strip() == "|":
                step.run, at = _block(lines, at, depth)
                continue
            if key == "env":
                step.env, at = _mapping(lines, at, depth)
                continue
            if key in ("run", "uses", "id"):
                setattr(step, key, _scalar(value))
        at += 1
    return Workflow(env, steps)
