"""The ACP Registry entry (editors/acp/agent.json) stays in step with the package, and what it
starts is an agent the registry takes: one that offers authentication methods."""

from __future__ import annotations

import json
import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from harness9 import __version__
from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.server import FakeLLM

pytestmark = pytest.mark.timeout(30)

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "editors" / "acp"


def _entry() -> dict[str, Any]:
    entry: dict[str, Any] = json.loads((ENTRY / "agent.json").read_text())
    return entry


def test_the_entry_has_the_registrys_fields_and_the_packages_version() -> None:
    entry = _entry()
    assert {"id", "name", "version", "description", "distribution"} <= entry.keys()
    assert re.fullmatch(r"[a-z][a-z0-9-]*", entry["id"])
    assert entry["name"] and entry["description"]
    assert entry["version"] == __version__
    assert set(entry["distribution"]) == {"uvx"}  # the registry knows binary, npx and uvx
    assert entry["distribution"]["uvx"] == {"package": f"harness9=={__version__}",
                                            "args": ["acp"]}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert entry["license"] == project["license"]
    assert entry["authors"] == [a["name"] for a in project["authors"]]
    assert set(entry) <= {"id", "name", "version", "description", "repository", "website",
                          "authors", "license", "license_url", "distribution"}


def test_the_icon_is_a_16_pixel_svg_in_the_clients_colour() -> None:
    svg = ET.parse(ENTRY / "icon.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.get("viewBox") == "0 0 16 16"
    colours = {el.get(attr) for el in svg.iter() for attr in ("fill", "stroke")} - {None}
    assert colours <= {"none", "currentColor"}, colours  # it follows the client's theme


async def test_what_the_entry_starts_offers_authentication(
    start: StartAgent, fake_llm: FakeLLM
) -> None:
    agent = await start(env=openai_env(fake_llm))  # `harness9 acp`, as the entry's args say
    init = agent.initialized
    assert init.auth_methods, "the registry requires at least one authentication method"
    assert init.agent_info is not None and init.agent_info.version == _entry()["version"]
