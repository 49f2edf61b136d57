"""The HTTP API, called in-process through WSGI: guard, error shape, routes, change feed."""

import io
import json
import re
import shutil
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from wsgiref.util import setup_testing_defaults

import pytest
from nodwyn import api, memory
from nodwyn.errors import BadInput
from nodwyn.log import records
from nodwyn.mcp import install as mcp_install
from nodwyn.tasks import demo

TOKEN = "secret-token-for-tests"
PORT = "8765"
APP_DIR = Path(__file__).resolve().parents[1] / "app"


class Client:
    """Calls a WSGI app in-process, as the browser would through the server."""

    def __init__(self, app):
        self.app = app

    def request(self, method, path, body=None, token=TOKEN, host=f"127.0.0.1:{PORT}", headers=()):
        path, _, query = path.partition("?")
        data = (
            body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
        )
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_PORT": PORT,
            "HTTP_HOST": host,
            "CONTENT_LENGTH": str(len(data)),
            "CONTENT_TYPE": "application/json",
            "wsgi.input": io.BytesIO(data),
            "wsgi.errors": io.StringIO(),
        }
        if token is not None:
            environ["HTTP_X_NODWYN_TOKEN"] = token
        for name, value in headers:
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        setup_testing_defaults(environ)
        seen = {}

        def start_response(status, response_headers, exc_info=None):
            seen["status"] = int(status.split()[0])
            seen["headers"] = {key.lower(): value for key, value in response_headers}

        body_out = b"".join(self.app(environ, start_response))
        return Response(seen["status"], seen["headers"], body_out)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    @property
    def json(self):
        return json.loads(self.body)


def assert_error_shape(response, status):
    assert response.status == status, response.body
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["cache-control"] == "no-store"
    data = response.json
    assert set(data) == {"ok", "error", "status"}
    assert data["ok"] is False and data["status"] == status
    assert isinstance(data["error"], str) and data["error"]


@pytest.fixture
def store(data_dir):
    return demo.make_demo(data_dir)


@pytest.fixture
def client(store):
    return Client(api.make_app(store, TOKEN))


# Input that each route refuses, and with which status: every route in the table needs a row,
# so a route added without one fails the test below.
BROKEN = {
    ("GET", "/"): ("/?token=wrong", None, 403),
    ("GET", "/static/<path:path>"): ("/static/../../pyproject.toml", None, 404),
    ("GET", "/api/tasks"): ("/api/tasks", None, 405),  # takes no input: a wrong method
    ("GET", "/api/tasks/<task>"): ("/api/tasks/no-such-task", None, 404),
    ("POST", "/api/tasks/<task>/title"): ("/api/tasks/demo-pager-limit/title", b"{nope", 400),
    ("POST", "/api/tasks/<task>/archive"): ("/api/tasks/demo-pager-ci/archive", b"[]", 400),
    ("DELETE", "/api/tasks/<task>"): ("/api/tasks/demo-needs-answer", None, 409),
    ("GET", "/api/tasks/<task>/cards"): ("/api/tasks/no-such-task/cards", None, 404),
    ("GET", "/api/tasks/<task>/context"): ("/api/tasks/demo-pager-limit/context?seq=x", None, 400),
    ("GET", "/api/tasks/<task>/export"): ("/api/tasks/demo-pager-ci/export?format=pdf", None, 400),
    ("GET", "/api/tasks/<task>/resume"): ("/api/tasks/no-such-task/resume", None, 404),
    ("POST", "/api/tasks/<task>/terminal"): ("/api/tasks/no-such-task/terminal", None, 404),
    ("GET", "/api/tasks/<task>/starred"): ("/api/tasks/demo-pager-limit/starred", None, 405),
    ("POST", "/api/tasks/<task>/turns/<seq>/star"): ("/api/tasks/demo-a/turns/x/star", b"", 400),
    ("GET", "/api/starred"): ("/api/starred", None, 405),
    ("GET", "/api/usage"): ("/api/usage?by=fortnight", None, 400),
    ("GET", "/api/activity"): ("/api/activity", None, 405),
    ("GET", "/api/board"): ("/api/board", None, 400),
    ("GET", "/api/search"): ("/api/search?q=pager&scope=nowhere", None, 400),
    ("GET", "/api/status"): ("/api/status", None, 405),
    ("GET", "/api/recall"): ("/api/recall?seq=2", None, 400),
    ("GET", "/api/changes"): ("/api/changes?since=soon", None, 400),
    ("GET", "/api/places"): ("/api/places", None, 405),
    ("GET", "/api/quota"): ("/api/quota", None, 405),
    ("POST", "/api/import"): ("/api/import", b'{"tool": "claude", "path": "relative/path"}', 400),
    ("GET", "/api/settings"): ("/api/settings", None, 405),
    ("POST", "/api/settings"): ("/api/settings", b'{"follow_claude": "yes"}', 400),
    ("GET", "/api/embeddings/cost"): ("/api/embeddings/cost?kind=pigeon", None, 400),
    ("GET", "/api/mcp"): ("/api/mcp", None, 405),
    ("GET", "/api/machines"): ("/api/machines", None, 405),
    ("POST", "/api/machines/sync"): ("/api/machines/sync", None, 400),  # no folder shared yet
    ("POST", "/api/machines/share"): ("/api/machines/share", b'{"path": "/x"}', 400),
    ("POST", "/api/machines/name"): ("/api/machines/name", b'{"name": "   "}', 400),
    ("POST", "/api/machines/<machine>/forget"): ("/api/machines/nobody/forget", None, 400),
    ("POST", "/api/mcp/<agent>"): ("/api/mcp/notepad", None, 400),
    ("GET", "/api/blame"): ("/api/blame?file=/no/such/file.py", None, 400),
    ("POST", "/api/who-wrote"): ("/api/who-wrote", b'{"code": "   "}', 400),
    ("POST", "/api/summaries/estimate"): ("/api/summaries/estimate", b'{"tasks": 3}', 400),
    ("POST", "/api/summaries/run"): ("/api/summaries/run", b'{"tasks": ["demo-pager-ci"]}', 400),
    ("GET", "/api/machines/ssh"): ("/api/machines/ssh", None, 405),
    ("POST", "/api/machines/ssh"): ("/api/machines/ssh", b'{"host": "a;b"}', 400),
    ("POST", "/api/machines/ssh/pull"): ("/api/machines/ssh/pull", b'{"id": "nowhere"}', 400),
    ("GET", "/api/summaries/progress"): ("/api/summaries/progress", None, 405),
    ("POST", "/api/summaries/cancel"): ("/api/summaries/cancel", None, 405),
    ("GET", "/api/live"): ("/api/live", None, 405),
    ("GET", "/api/hooks"): ("/api/hooks", None, 405),
    ("POST", "/api/hooks/<agent>"): ("/api/hooks/notepad", b'{"install": true}', 400),
    ("POST", "/api/live/events"): ("/api/live/events", b'{"payload": 3}', 400),
}  # fmt: skip


def test_every_route_answers_its_errors_in_one_json_shape(store, client):
    table = api.routes(store, TOKEN, api.Feed(store.sessions, api.Status()))
    assert {(method, path) for method, path, _ in table} == set(BROKEN)
    for method, path, _ in table:
        url, body, status = BROKEN[(method, path)]
        sent = "PUT" if status == 405 else method
        assert_error_shape(client.request(sent, url, body), status)
        concrete = re.sub(r"<[^>]+>", "demo-pager-limit", path).replace("<path:path>", "style.css")
        assert_error_shape(client.request(method, concrete, host=f"evil.example:{PORT}"), 403)
    assert_error_shape(client.get("/api/no-such-route"), 404)
    assert_error_shape(client.get("/no-such-page"), 404)


def test_an_uncaught_exception_is_a_json_500(store, client):
    shutil.rmtree(store.sessions)  # listing now fails deep inside, not as a NodwynError
    response = client.get("/api/tasks")
    assert_error_shape(response, 500)
    assert "internal error" in response.json["error"]


def test_api_requests_without_the_token_are_refused(client):
    assert_error_shape(client.get("/api/tasks", token=None), 403)
    assert_error_shape(client.get("/api/tasks", token="guess"), 403)
    cookie = [("Cookie", f"token={TOKEN}; X-Nodwyn-Token={TOKEN}")]
    assert_error_shape(client.get("/api/tasks", token=None, headers=cookie), 403)
    assert_error_shape(client.get(f"/api/tasks?token={TOKEN}", token=None), 403)
    assert client.get("/api/tasks").status == 200


def test_a_foreign_or_mismatched_host_is_refused_even_with_the_token(client):
    for host in ("evil.example", f"evil.example:{PORT}", "127.0.0.1:9", f"127.0.0.2:{PORT}", ""):
        assert_error_shape(client.get("/api/tasks", host=host), 403)
        assert_error_shape(client.get(f"/?token={TOKEN}", host=host), 403)
    assert client.get("/api/tasks", host=f"localhost:{PORT}").status == 200


def test_the_page_hands_its_token_to_its_scripts_only_when_asked_with_it(client):
    assert_error_shape(client.get("/", token=None), 403)
    page = client.get(f"/?token={TOKEN}", token=None)
    assert page.status == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-store"
    assert f'<meta name="nodwyn-token" content="{TOKEN}">' in page.body.decode()
    assert "script-src 'self'" in page.headers["content-security-policy"]
    script = client.get("/static/js/app.js", token=None)
    assert script.status == 200 and script.headers["content-type"].startswith("text/javascript")
    assert TOKEN.encode() not in script.body


def test_tasks_are_listed_archived_and_machine_runs_included(client):
    tasks = {task["id"]: task for task in client.get("/api/tasks").json["tasks"]}
    assert len(tasks) == 12
    assert tasks["demo-pager-go123"]["archived"] is True
    assert tasks["demo-machine-changelog"]["machine"] is True
    assert tasks["demo-needs-answer"]["state"] == "needs an answer"
    assert client.get("/api/tasks/demo-pager-flaky").json["branch"] == "fix/order"


def test_rename_archive_and_delete_go_through_the_store(store, client):
    renamed = client.post("/api/tasks/demo-pager-limit/title", {"title": "  Add --limit  "})
    assert renamed.json["title"] == "Add --limit" and renamed.json["title_by"] == "person"
    assert store.get("demo-pager-limit").title == "Add --limit"
    assert client.post("/api/tasks/demo-pager-limit/archive", {"archived": True}).json["archived"]
    assert store.get("demo-pager-limit").archived
    assert not client.post("/api/tasks/demo-pager-limit/archive", {"archived": False}).json[
        "archived"
    ]
    assert client.request("DELETE", "/api/tasks/demo-pager-limit").json == {"ok": True}
    assert not store.exists("demo-pager-limit")
    assert_error_shape(client.get("/api/tasks/demo-pager-limit"), 404)
    too_long = client.post("/api/tasks/demo-pager-ci/title", {"title": "x" * 121})
    assert_error_shape(too_long, 400)
    assert_error_shape(client.post("/api/tasks/demo-pager-ci/title", {"name": "x"}), 400)


def test_search_groups_turns_and_names_the_words_it_matched(client):
    found = client.get("/api/search?q=TestPagerOrder&scope=all").json
    assert found["turns"] and found["turns"][0]["task"] == "demo-pager-flaky"
    assert "pager" in found["terms"]
    assert all(len(event["lines"]) <= 3 for turn in found["turns"] for event in turn["events"])
    one = client.get("/api/search?q=pager&scope=task&task=demo-pager-limit").json
    assert {turn["task"] for turn in one["turns"]} == {"demo-pager-limit"}
    assert_error_shape(client.get("/api/search?q=pager&scope=task"), 400)


def test_concurrent_first_searches_see_the_same_results(client):
    answers = []

    def ask():
        answers.append(len(client.get("/api/search?q=pager+order&scope=all").json["turns"]))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers[0] > 0 and len(set(answers)) == 1


def test_context_gives_at_most_81_events_around_a_seq_and_pages_of_500(client):
    around = client.get("/api/tasks/demo-pager-index/context?seq=45").json
    seqs = [event["seq"] for event in around["events"]]
    assert 45 in seqs and len(seqs) == 81 and around["has_earlier"] and around["has_later"]
    page = client.get("/api/tasks/demo-pager-index/context?seq=19&before=499&after=0").json
    assert [event["seq"] for event in page["events"]] == list(range(1, 20))
    latest = client.get("/api/tasks/demo-pager-index/context").json
    assert latest["events"][-1]["seq"] == latest["total"] and not latest["has_later"]
    cards = client.get("/api/tasks/demo-pager-index/cards").json["cards"]
    assert [card["first_seq"] for card in cards] == sorted(card["first_seq"] for card in cards)


def test_the_change_feed_names_changed_tasks_without_their_content(store, client):
    start = client.get("/api/changes?since=0&wait=0").json
    assert start["tasks"] == [] and start["progress"]["phase"] == ""
    with store.writer("demo-pager-ci") as writer:  # as another process or the importer would
        writer.append([records.Message(text="one more secret-looking thing")])
    changed = client.get(f"/api/changes?since={start['version']}&wait=5").json
    assert changed["tasks"] == ["demo-pager-ci"] and changed["version"] > start["version"]
    assert "secret-looking" not in json.dumps(changed)
    client.request("DELETE", "/api/tasks/demo-pager-ci")
    gone = client.get(f"/api/changes?since={changed['version']}&wait=0").json
    assert gone["tasks"] == ["demo-pager-ci"]


def test_a_waiting_page_hears_progress_at_once(store):
    status = api.Status()
    client = Client(api.make_app(store, TOKEN, status))
    version = client.get("/api/changes?since=0&wait=0").json["version"]
    threading.Timer(0.2, status.set, ("importing", 120, 480)).start()
    began = time.monotonic()
    heard = client.get(f"/api/changes?since={version}&wait=20").json
    assert time.monotonic() - began < 10
    assert heard["progress"] == {
        "phase": "importing",
        "done": 120,
        "total": 480,
        "note": "",
        "left": -1.0,
    }
    assert client.get("/api/status").json == heard["progress"]


def test_the_server_answers_on_127_0_0_1_while_a_page_waits_for_changes(store):
    server = api.Server(store).start()
    try:
        assert server.port > 0 and server.url.startswith(f"http://127.0.0.1:{server.port}/?token=")
        base = f"http://127.0.0.1:{server.port}"

        def call(path):
            request = urllib.request.Request(base + path, headers={"X-Nodwyn-Token": server.token})
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.headers, json.loads(answer.read())

        waiting = threading.Thread(target=call, args=("/api/changes?since=0&wait=3",))
        waiting.start()
        began = time.monotonic()
        headers, listed = call("/api/tasks")  # answered while the long poll waits
        assert time.monotonic() - began < 2.5 and len(listed["tasks"]) == 12
        assert headers["Cache-Control"] == "no-store"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/api/tasks", timeout=5)
        assert refused.value.code == 403
        refused.value.close()
        waiting.join()
    finally:
        server.stop()


def test_only_the_api_package_imports_bottle():
    importers = [
        path.relative_to(APP_DIR).as_posix()
        for path in APP_DIR.rglob("*.py")
        if re.search(r"^\s*(import bottle|from bottle)", path.read_text(), re.M)
    ]
    assert importers, "no module imports bottle: the check looks in the wrong place"
    assert all(path.startswith("api/") for path in importers), importers


def test_concurrent_listings_while_logs_change_all_succeed(store, client):
    failures = []

    def list_tasks():
        for _ in range(5):
            response = client.get("/api/tasks")
            if response.status != 200:
                failures.append(response.body)

    for round_ in range(3):
        with store.writer("demo-pager-ci") as writer:  # each change makes listings rewrite
            writer.append([records.Message(text=f"change {round_}")])
        threads = [threading.Thread(target=list_tasks) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []


def test_a_port_in_use_is_a_one_line_error(store):
    first = api.Server(store).start()
    try:
        with pytest.raises(BadInput, match=f"cannot listen on 127.0.0.1:{first.port}"):
            api.Server(store, port=first.port)
    finally:
        first.stop()


def test_earlier_tasks_switches_are_merged_and_a_false_one_is_removed(client, store):
    from nodwyn import settings

    client.post("/api/settings", {"earlier_tasks": {"/a": True}})
    client.post("/api/settings", {"earlier_tasks": {"/b": True}})
    assert settings.load(store.root).earlier_tasks == {"/a": True, "/b": True}
    client.post("/api/settings", {"earlier_tasks": {"/a": False}})
    assert settings.load(store.root).earlier_tasks == {"/b": True}


def test_an_embeddings_key_is_kept_apart_and_only_said_to_be_set(client, store):
    from nodwyn import settings

    key = "sk-never-shown-77"
    chosen = {"embeddings": "openai", "embeddings_url": "http://127.0.0.1:9"}
    chosen["embeddings_model"] = "m"
    answer = client.post("/api/settings", {**chosen, "embeddings_key": key})
    assert answer.status == 200 and key not in answer.body.decode()
    assert answer.json["embeddings_key_set"] is True and "embeddings_key" not in answer.json
    assert key not in client.get("/api/settings").body.decode()
    assert key not in settings.path(store.root).read_text()
    assert settings.embeddings_key(store.root) == key
    client.post("/api/settings", {"embeddings_model": "m2"})  # same address: the key stays
    assert client.get("/api/settings").json["embeddings_key_set"] is True
    client.post("/api/settings", {"embeddings_url": "http://127.0.0.1:10"})  # another server
    assert client.get("/api/settings").json["embeddings_key_set"] is False


def test_a_key_file_that_cannot_be_read_is_said_clearly_and_kept(client, store):
    import pytest
    from nodwyn import settings
    from nodwyn.errors import BadInput

    settings.key_path(store.root).write_bytes(b"\xff\xfe not text")
    assert client.get("/api/settings").json["embeddings_key_set"] is True  # the page still opens
    with pytest.raises(BadInput, match="cannot be read.*Settings > Search"):
        settings.embeddings_key(store.root)
    assert settings.key_path(store.root).read_bytes() == b"\xff\xfe not text"  # nothing lost


def test_a_provider_that_could_not_work_is_refused_and_nothing_changes(client, store):
    from nodwyn import settings

    for wrong in (
        {"embeddings": "ollama", "embeddings_url": "127.0.0.1:11434", "embeddings_model": "m"},
        {"embeddings": "openai", "embeddings_url": "http://127.0.0.1:8080"},
        {"embeddings": "elsewhere"},
        {"embeddings": "openai", "embeddings_url": "http://x", "embeddings_model": "m",
         "embeddings_key": "two words"},
    ):  # fmt: skip
        assert_error_shape(client.post("/api/settings", wrong), 400)
    assert settings.load(store.root) == settings.Settings()
    assert settings.embeddings_key(store.root) == ""


def test_search_takes_a_mode_and_without_one_the_setting_decides(client, store):
    from nodwyn import settings

    def mode(query):
        answer = client.get("/api/search?q=pager+order&scope=all" + query)
        assert answer.status == 200, answer.body
        return answer.json["mode"], len(answer.json["turns"])

    memory.encode(store)  # as the background does: a search encodes only its query
    assert mode("") == (settings.load(store.root).search_mode, mode("")[1])
    for each in ("words", "meaning", "both"):
        chosen, found = mode(f"&mode={each}")
        assert chosen == each and found > 0
    settings.update(store.root, search_mode="words")
    assert mode("")[0] == "words"
    assert mode("&mode=meaning")[0] == "meaning"  # the request's mode wins over the setting
    wrong = client.get("/api/search?q=pager&scope=all&mode=vibes")
    assert_error_shape(wrong, 400)
    assert "mode is one of words, meaning, both" in wrong.json["error"]


def test_settings_connect_writes_the_agents_configuration_as_mcp_install_does(client, agents_home):
    (agents_home / ".gemini").mkdir()  # Gemini CLI is on this computer; Copilot CLI is not
    listed = {a["agent"]: a for a in client.get("/api/mcp").json["agents"]}
    assert list(listed) == list(mcp_install.AGENTS)
    assert {"claude", "codex", "gemini", "qwen", "crush", "cline", "continue"} <= set(listed)
    gemini = listed["gemini"]
    assert gemini["detected"] and not gemini["connected"] and not listed["copilot"]["detected"]
    assert gemini["file"] == str(agents_home / ".gemini" / "settings.json")
    assert '"--agent",\n        "gemini"' in gemini["lines"]
    done = client.post("/api/mcp/gemini").json
    assert done["connected"] and done["said"].startswith("Added mcpServers.nodwyn")
    written = json.loads((agents_home / ".gemini" / "settings.json").read_text())
    assert written["mcpServers"]["nodwyn"]["args"][-2:] == ["--agent", "gemini"]
    assert "already has" in client.post("/api/mcp/gemini").json["said"]
