"""The bad-input drill: openapi.yaml agrees with the Worker's source, the oracle with the table, and a real run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from reservation_lab.domain.client import LabClient
from reservation_lab.domain.runs import RunFolder
from reservation_lab.drills.bad_input import (
    CASES,
    OPENAPI,
    Answer,
    BadInputReport,
    Contract,
    Expected,
    RawRequest,
    decode_uri_component,
    durable_digest,
    generate,
    load_openapi,
    normalise_path,
    parse_json_like_js,
    python_pattern,
    run_bad_input_drill,
)
from reservation_lab.paths import WORKER_SRC
from reservation_lab.runtime.devserver import DevServer
from reservation_lab.runtime.ports import port_is_free

EXAMPLES = 150


def js_constants() -> dict[str, str]:
    """`export const NAME = <value>;` from validation.js (regex literals without their slashes)."""
    source = (WORKER_SRC / "validation.js").read_text()
    found = dict(re.findall(r"^export const (\w+) = (.+);$", source, re.MULTILINE))
    return {name: value[1:-1] if value.startswith("/") else value for name, value in found.items()}


@pytest.fixture(scope="module")
def contract() -> Contract:
    return Contract(load_openapi())


def test_openapi_matches_the_worker_source() -> None:
    doc = yaml.safe_load(OPENAPI.read_text())
    assert doc["openapi"].startswith("3.1")
    constants = js_constants()
    schemas = doc["components"]["schemas"]
    assert schemas["WorkshopName"]["pattern"] == constants["WORKSHOP_NAME"]
    assert schemas["RequestId"]["pattern"] == constants["REQUEST_ID"]
    assert (schemas["Seats"]["minimum"], schemas["Seats"]["maximum"]) == (1, int(constants["MAX_SEATS"]))
    body = doc["paths"]["/workshops/{name}/reservations"]["post"]["requestBody"]
    assert body["x-max-bytes"] == int(constants["MAX_BODY_BYTES"])
    route = re.search(r"pathname\.match\(/(.+)/\)", (WORKER_SRC / "validation.js").read_text())[1]
    actions = re.search(r"\(([a-z|]+)\)\$$", route)[1].split("|")
    assert set(doc["paths"]) == {"/health"} | {f"/workshops/{{name}}/{action}" for action in actions}
    worker = "".join((WORKER_SRC / name).read_text() for name in ("index.js", "front.js", "validation.js"))
    codes = set(re.findall(r'error: "(\w+)"', worker))
    assert set(schemas["Error"]["properties"]["error"]["enum"]) == codes


def test_the_table_is_the_test_table_and_the_oracle_agrees(contract: Contract) -> None:
    from tests.worker.test_bad_input import CASES as TEST_CASES

    assert TEST_CASES is CASES  # one source: the runtime test sends the drill's table, not a copy of it
    for case in CASES:
        assert contract.expect(case.request()) == Expected(case.status, case.error), case.id


def test_js_semantics_helpers() -> None:
    assert decode_uri_component("a%2Fb") == "a/b"
    assert decode_uri_component("%C3%A9") == "é"
    for bad in ("%", "%zz", "a%E0%A4%A", "%FF", "%ED%A0%80", "%C0%AF"):
        assert decode_uri_component(bad) is None, bad
    assert normalise_path("/workshops/a/../status") == "/workshops/status"
    assert normalise_path("/x/%2E%2e/health?q=1") == "/health"
    assert normalise_path("/a/.") == "/a/"
    assert parse_json_like_js(b'\xef\xbb\xbf{"a":1}') == {"a": 1}
    assert parse_json_like_js(b"NaN") is parse_json_like_js(b"{") is parse_json_like_js(b"")
    assert re.search(python_pattern("^[a-z]{3}$"), "abc\n") is None


def test_the_contract_notices_wrong_answers(contract: Contract) -> None:
    request = RawRequest("t", "POST", "/workshops/a/reservations", b"{")
    expected = contract.expect(request)
    assert expected == Expected(400, "invalid_json")
    right = Answer(400, {"content-type": "application/json"}, b'{"error":"invalid_json"}')
    assert contract.check_answer(request, right, expected) == []
    for wrong in (Answer(500, {"content-type": "text/plain"}, b"boom"),
                  Answer(400, {"content-type": "application/json"}, b'{"error":"invalid_reservation"}'),
                  Answer(400, {"content-type": "application/json"}, b'{"error":"invalid_json","x":1}'),
                  Answer(error="ConnectionResetError")):
        assert contract.check_answer(request, wrong, expected) != []
    head = RawRequest("t", "HEAD", "/health", None)
    assert contract.check_answer(head, Answer(405, {"content-type": "application/json"}, b""),
                                 contract.expect(head)) == ["the documented Allow header is missing"]


def test_generated_requests_are_malformed_and_distinct(contract: Contract) -> None:
    requests = generate(contract, 200, seed=11)
    assert len(requests) == 200 == len(set(requests))
    assert {r.kind for r in requests} == {"body", "name", "method", "path"}
    assert all(contract.expect(r) is not None for r in requests)
    assert generate(contract, 50, seed=11) == generate(contract, 50, seed=11)


def test_the_digest_sees_a_write_and_only_a_write(dev_server: DevServer, client: LabClient,
                                                   run_folder: RunFolder) -> None:
    assert client.reserve("digest", "request-1").status_code == 201
    first = durable_digest(run_folder.state_dir)
    client.status("digest")
    assert durable_digest(run_folder.state_dir).rows == first.rows
    assert client.reserve("digest", "request-2").status_code == 201
    assert durable_digest(run_folder.state_dir).rows != first.rows


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> BadInputReport:
    return run_bad_input_drill(EXAMPLES, workdir=tmp_path_factory.mktemp("bad-input") / "run", seed=20260918,
                               progress=False)


def test_the_drill_holds(report: BadInputReport) -> None:
    assert report.server_errors == 0
    assert [finding.describe() for finding in report.findings] == []
    assert report.valid_problems == [] and report.valid_checked == 6
    assert report.status_unchanged and report.status_after["acceptedRequests"] == 1
    assert report.rows_unchanged
    assert report.ok, report.summary()


def test_the_drill_sent_what_it_says(report: BadInputReport) -> None:
    assert (report.table_sent, report.generated_sent) == (len(CASES), EXAMPLES)
    assert sum(report.statuses.values()) == report.sent
    assert all(400 <= status < 500 for status in report.statuses)
    assert set(report.errors) <= {"invalid_workshop_name", "invalid_json", "invalid_reservation", "not_found",
                                  "method_not_allowed", "payload_too_large"}
    assert all(status >= 400 for _, status, _, _ in report.runtime_probes)
    assert report.port and port_is_free(report.port)
    assert "PASS" in report.summary()
    assert Path(report.workdir, "logs", "bad-input-drill.log").exists()
