"""Choosing the model (`--model PROVIDER:ID`, `--reasoning-effort`, `/model` at the interactive
prompt) and slash commands sent to the daemon (`/review` from the workspace, `/compact`, `/clear`,
`/resume ID`), against the real daemon and the fake LLM service."""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness9.client.run_config import UsageError, options_from_args
from harness9.client.slash import SlashError, model_choice, split_model
from tests.client.conftest import HARNESS9, Completed, run_harness9
from tests.client.terminal import Terminal
from tests.fakellm import Fail, FakeLLM, Reply
from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm"]

pytestmark = pytest.mark.timeout(60)

REVIEW = (
    "---\ndescription: Review the diff\nargument-hint: FOCUS\n---\n"
    "Review it, looking at $ARGUMENTS.\n"
)


def _env(fake: FakeLLM) -> dict[str, str]:
    """OpenAI only (the fake), with two more models to choose from."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "HARNESS9_MODEL"))
    }
    openai = {k: v for k, v in fake.env().items() if k.startswith("OPENAI_")}
    return {
        **env,
        **openai,
        "HARNESS9_PROVIDER": "openai",
        "HARNESS9_MODEL": "gpt-4o-mini",
        "HARNESS9_MODELS": "gpt-4o,o3-mini",
    }


def _interactive(workspace: Path, env: dict[str, str], lines: str, *extra: str) -> Completed:
    proc = subprocess.run(
        [*HARNESS9, "run", "-i", "--workspace", str(workspace), *extra],
        input=lines,
        capture_output=True,
        text=True,
        timeout=45,
        env=env,
    )
    return Completed(proc.returncode, proc.stdout, proc.stderr)


def _results(done: Completed) -> list[dict[str, Any]]:
    return [line["result"] for line in done.json_lines() if "result" in line]


def _chats(fake: FakeLLM) -> list[dict[str, Any]]:
    return [r.body for r in fake.requests if r.path.endswith("chat/completions")]


def _last_user_text(body: dict[str, Any]) -> str:
    content = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def _args(*argv: str) -> argparse.Namespace:
    from harness9.cli import build_parser

    return build_parser().parse_args(["run", *argv])


def test_a_model_names_its_provider_unless_the_prefix_is_no_provider() -> None:
    assert split_model("anthropic:claude-x") == ("anthropic", "claude-x")
    assert split_model("ft:gpt-4o:org") == (None, "ft:gpt-4o:org")
    assert split_model("gpt-4o") == (None, "gpt-4o")
    assert model_choice("openai:o3-mini high") == {
        "provider": "openai",
        "model": "o3-mini",
        "reasoningEffort": "high",
    }
    with pytest.raises(SlashError, match="low, medium or high"):
        model_choice("o3-mini hardest")
    with pytest.raises(SlashError, match="usage"):
        model_choice("")


def test_model_and_reasoning_effort_flags_become_run_params(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}
    argv = ("--workspace", str(tmp_path), "--model", "anthropic:claude-x")
    options = options_from_args(_args(*argv, "--reasoning-effort", "low"), "hi", env)
    assert options.provider == "anthropic"
    assert options.run_params["model"] == "claude-x"
    assert options.run_params["reasoningEffort"] == "low"
    with pytest.raises(UsageError, match="names provider anthropic"):
        options_from_args(_args(*argv, "--provider", "openai"), "hi", env)
    help_text = run_harness9("run", "--help").out
    assert "--reasoning-effort {low,medium,high}" in help_text
    assert "[PROVIDER:]ID" in help_text


def test_model_flag_reaches_the_service(workspace: Path, fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("ok")])
    done = run_harness9(
        "run",
        "hi",
        "--workspace",
        str(workspace),
        "--json",
        "--model",
        "openai:o3-mini",
        "--reasoning-effort",
        "medium",
        env=_env(fake_llm),
    )
    assert done.code == 0, done.err
    body = _chats(fake_llm)[-1]
    assert (body["model"], body.get("reasoning_effort")) == ("o3-mini", "medium")


def test_model_at_the_prompt_lists_and_picks(workspace: Path, fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("one"), Reply("two")])
    lines = "/model\n/model openai:gpt-4o high\nhello\n/model o3-mini\nagain\n"
    done = _interactive(workspace, _env(fake_llm), lines, "--json")
    assert done.code == 0, done.err
    listed = next(line["agent/models"] for line in done.json_lines() if "agent/models" in line)
    ids = [m["id"] for m in listed["models"]]
    assert {"gpt-4o", "o3-mini", "gpt-4o-mini"} <= set(ids), listed
    assert listed["current"]["model"] == "gpt-4o-mini"
    bodies = _chats(fake_llm)
    assert (bodies[0]["model"], bodies[0].get("reasoning_effort")) == ("gpt-4o", "high")
    assert bodies[1]["model"] == "o3-mini"
    results = _results(done)
    assert results[0]["sessionId"] == results[1]["sessionId"]
    set_model = next(
        line["agent/setModel"] for line in done.json_lines() if "agent/setModel" in line
    )
    assert set_model["model"] == "o3-mini"


def test_slash_commands_run_in_the_daemon(workspace: Path, fake_llm: FakeLLM) -> None:
    (workspace / ".harness9" / "commands").mkdir(parents=True)
    (workspace / ".harness9" / "commands" / "review.md").write_text(REVIEW)
    fake_llm.script([Reply("Reviewed."), Reply("A summary of it all.")])
    done = _interactive(workspace, _env(fake_llm), "/review naming\n/compact\n/clear\n", "--json")
    assert done.code == 0, done.err
    assert _last_user_text(_chats(fake_llm)[0]).strip() == "Review it, looking at naming."
    review, compact, clear = _results(done)
    assert compact["command"] == "compact"
    assert compact["sessionId"] == review["sessionId"]
    assert clear["command"] == "clear"
    assert clear["sessionId"] != review["sessionId"]
    progress = [line for line in done.json_lines() if line.get("kind") == "command"]
    assert [p["name"] for p in progress] == ["compact", "clear"]


def test_the_terminal_shows_commands_and_follows_resume(workspace: Path, fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("First answer.")])
    env = _env(fake_llm)
    first = run_harness9("run", "remember me", "--workspace", str(workspace), "--json", env=env)
    assert first.code == 0, first.err
    old = first.json_lines()[-1]["result"]["sessionId"]
    (workspace / ".harness9" / "commands").mkdir(parents=True)
    (workspace / ".harness9" / "commands" / "review.md").write_text(REVIEW)
    done = _interactive(
        workspace, env, f"/help\n/model\n/model o3-mini low\n/clear\n/resume {old}\n"
    )
    assert done.code == 0, done.err
    assert "● openai/gpt-4o-mini · 128k context · images" in done.out  # /model: the one in use
    assert "  openai/o3-mini · 200k context · images · reasoning" in done.out
    assert "model o3-mini · effort low (for the next run)" in done.out
    assert "/review FOCUS" in done.out and "Review the diff" in done.out  # /help
    assert "/clear" in done.out
    assert f"/resume {old}" in done.out  # the command's own line
    assert f"continuing in session {old}" in done.out
    assert f"resuming {old} · remember me · 1 run" in done.out  # the recap, as --resume shows it
    assert done.out.index("First answer.") < done.out.index(f"continuing in session {old}")
    assert "✓ completed · /resume" in done.out


def test_tab_completes_a_command_at_the_prompt(workspace: Path, replay: Any) -> None:
    (workspace / ".harness9" / "commands").mkdir(parents=True)
    (workspace / ".harness9" / "commands" / "review.md").write_text(REVIEW)
    script = replay([{"text": "Reviewed."}])
    term = Terminal(["run", "--workspace", str(workspace), "--replay", str(script)])
    try:
        term.wait_for(lambda screen: screen.endswith("›"))
        term.type(b"/rev\t")
        term.wait_for(lambda screen: screen.endswith("› /review"))
        term.type(b" it\r")
        # The prompt is back (a key typed before it goes to the run's own reader).
        term.wait_for(lambda screen: "✓ completed" in screen and screen.endswith("›"))
        term.type(b"\x04")
        assert term.finish() == 0
    finally:
        term.kill()
    assert "Reviewed." in term.transcript()


def test_an_unknown_model_is_answered_with_how_to_pick_another(
    workspace: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.models = ["gpt-4o", "o3-mini"]
    fake_llm.script([Fail(404, "The model `gpt-4o-mini` does not exist")])
    done = run_harness9("run", "hello", "--workspace", str(workspace), env=_env(fake_llm))
    assert done.code == 1, done.err
    assert "the model 'gpt-4o-mini' is not offered there" in done.out, done.out
    assert "it offers: gpt-4o, o3-mini" in done.out
    assert "harness9 run --model [PROVIDER:]ID" in done.out
    assert "agent/models" not in done.out  # a method of the wire, not a thing to type
