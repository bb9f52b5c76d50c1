"""`pathMap`'s translation of the URIs and paths on the wire (`harness9.lsp.path_map`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness9.lsp import path_map


@pytest.fixture(autouse=True)
def _no_map() -> Iterator[None]:
    yield
    path_map.apply_setting({"pathMap": None})


def use(*pairs: tuple[str, str]) -> None:
    assert path_map.apply_setting(
        {"pathMap": [{"local": local, "remote": remote} for local, remote in pairs]}) == []


def test_uris_and_paths_move_both_ways_and_text_stays() -> None:
    use(("/home/me/proj", "file:///srv/proj"))
    message = {"params": {
        "rootUri": "file:///home/me/proj", "rootPath": "/home/me/proj",
        "workspaceFolders": [{"uri": "file:///home/me/proj", "name": "proj"}],
        "textDocument": {"uri": "file:///home/me/proj/a%20b.py", "text": "/home/me/proj/x"},
        "prompt": "file:///home/me/proj/a.py"}}
    assert path_map.to_daemon(message) == {"params": {
        "rootUri": "file:///srv/proj", "rootPath": "/srv/proj",
        "workspaceFolders": [{"uri": "file:///srv/proj", "name": "proj"}],
        "textDocument": {"uri": "file:///srv/proj/a%20b.py", "text": "/home/me/proj/x"},
        "prompt": "file:///home/me/proj/a.py"}}
    edit = {"edit": {"changes": {"file:///srv/proj/a.py": [{"newText": "/srv/proj"}]},
                     "documentChanges": [{"textDocument": {"uri": "file:///srv/proj/b.py"}}]},
            "workspaceRoot": "/srv/proj", "path": "a.py"}
    assert path_map.to_editor(edit) == {
        "edit": {"changes": {"file:///home/me/proj/a.py": [{"newText": "/srv/proj"}]},
                 "documentChanges": [{"textDocument": {"uri": "file:///home/me/proj/b.py"}}]},
        "workspaceRoot": "/home/me/proj", "path": "a.py"}


def test_only_whole_path_components_match() -> None:
    use(("/home/me/proj", "/srv/proj"))
    assert path_map.to_daemon({"uri": "file:///home/me/project/a.py"}) == {
        "uri": "file:///home/me/project/a.py"}
    assert path_map.to_daemon({"uri": "file:///elsewhere/a.py"}) == {
        "uri": "file:///elsewhere/a.py"}


def test_a_uri_of_another_scheme_maps_to_a_file_uri() -> None:
    use(("vscode-remote://ssh-remote+box/data", "/data"))
    assert path_map.to_daemon({"uri": "vscode-remote://ssh-remote+box/data/q%20r.py"}) == {
        "uri": "file:///data/q%20r.py"}
    assert path_map.to_editor({"uri": "file:///data/z z.py", "workspaceRoot": "/data"}) == {
        "uri": "vscode-remote://ssh-remote+box/data/z%20z.py", "workspaceRoot": "/data"}


def test_the_first_entry_that_holds_a_path_wins() -> None:
    use(("/w/inner", "/r/special"), ("/w", "/r"))
    assert path_map.to_daemon({"path": "/w/inner/a", "uri": "file:///w/b"}) == {
        "path": "/r/special/a", "uri": "file:///r/b"}


def test_initialize_brings_its_own_map_and_frames_are_reframed() -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "rootUri": "file:///here", "initializationOptions": {
            "pathMap": [{"local": "/here", "remote": "/there"}]}}}
    assert path_map.to_daemon(message)["params"]["rootUri"] == "file:///there"
    body = b'{"jsonrpc": "2.0", "method": "x", "params": {"uri": "file:///there/\xc3\xa9"}}'
    frame = path_map.frame_to_editor(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    head, _, new_body = frame.partition(b"\r\n\r\n")
    assert b"Content-Length: %d" % len(new_body) in head
    assert b'"file:///here/%C3%A9"' in new_body


@pytest.mark.parametrize("value", [
    "/a=/b", [{"local": "/x"}], [{"local": "/x", "remote": ""}],
    [{"local": "/x", "remote": "/y", "other": 1}],
])
def test_a_bad_setting_is_a_problem_and_keeps_the_map(value: object) -> None:
    use(("/a", "/b"))
    (problem,) = path_map.apply_setting({"pathMap": value})
    assert problem.startswith("pathMap: must be a list of {\"local\"")
    assert path_map.to_daemon({"uri": "file:///a/x"}) == {"uri": "file:///b/x"}
    assert path_map.apply_setting({"provider": "openai"}) == []  # absent: no change
    assert path_map.active()
