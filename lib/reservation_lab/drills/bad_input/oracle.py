"""The oracle: what openapi.yaml says a request must get (routes, check order, schemas), and what is wrong with
an answer that came back."""

from __future__ import annotations

import json
import re
from typing import Any

from reservation_lab.drills.bad_input.js_semantics import (
    INVALID,
    decode_uri_component,
    deep_recursion,
    normalise_path,
    parse_json_like_js,
)
from reservation_lab.drills.bad_input.openapi import OPERATIONS, python_patterns, resolve_refs
from reservation_lab.drills.bad_input.wire import Answer, Expected, RawRequest


class Contract:
    """What openapi.yaml says: routes, check order, schemas; predicts and checks answers."""

    def __init__(self, document: dict[str, Any]) -> None:
        from jsonschema import Draft202012Validator

        self.document = document
        resolved = python_patterns(resolve_refs(document, document))
        self.routes: list[tuple[str, re.Pattern[str], dict[str, Any]]] = []
        for template, item in resolved["paths"].items():
            regex = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
            self.routes.append((template, re.compile(regex), item))
        self.unmatched = resolved["x-unmatched-path"]
        schemas = document["components"]["schemas"]
        self.name_pattern = schemas["WorkshopName"]["pattern"]
        self.request_id_pattern = schemas["RequestId"]["pattern"]
        self.seats_range = (schemas["Seats"]["minimum"], schemas["Seats"]["maximum"])
        reserve = resolved["paths"]["/workshops/{name}/reservations"]["post"]["requestBody"]
        self.max_body_bytes: int = reserve["x-max-bytes"]
        self._validator = Draft202012Validator
        self._validators: dict[int, tuple[dict[str, Any], Any]] = {}
        self._param_validators = {
            (template, param["name"]): Draft202012Validator(param["schema"])
            for template, _, item in self.routes for param in item.get("parameters", [])
        }

    def validator(self, schema: dict[str, Any]) -> Any:
        """A JSON Schema 2020-12 validator for a schema of the resolved document (cached per schema)."""
        cached = self._validators.get(id(schema))
        if cached is None or cached[0] is not schema:
            cached = self._validators[id(schema)] = (schema, self._validator(schema))
        return cached[1]

    def route(self, pathname: str) -> tuple[str | None, dict[str, Any], dict[str, str]]:
        """(template, path item, path parameters) of a normalised pathname; template None when no route matches."""
        for template, regex, item in self.routes:
            match = regex.fullmatch(pathname)
            if match:
                return template, item, match.groupdict()
        return None, self.unmatched, {}

    def operation(self, item: dict[str, Any], method: str) -> dict[str, Any] | None:
        """The operation for `method` on a path item, or None (then `x-other-methods` answers)."""
        key = method.lower()
        return item.get(key) if method.isupper() and key in OPERATIONS else None

    def expect(self, request: RawRequest) -> Expected | None:
        """The documented answer to `request`, following the check order; None if the request is valid."""
        pathname = normalise_path(request.path)
        template, item, params = self.route(pathname)
        if template is None:
            return Expected(404, "not_found")
        for name, raw in params.items():
            decoded = decode_uri_component(raw)
            if decoded is None or not self._param_validators[template, name].is_valid(decoded):
                return Expected(400, "invalid_workshop_name")
        operation = self.operation(item, request.method)
        if operation is None:
            return Expected(405, "method_not_allowed")
        body_spec = operation.get("requestBody")
        if body_spec is None:
            return None
        body = request.body or b""
        if len(body) > self.max_body_bytes:
            return Expected(413, "payload_too_large")
        parsed = parse_json_like_js(body)
        if parsed is INVALID:
            return Expected(400, "invalid_json")
        with deep_recursion():
            valid = self.validator(body_spec["content"]["application/json"]["schema"]).is_valid(parsed)
        if not valid:
            return Expected(400, "invalid_reservation")
        return None

    def documented_response(self, request: RawRequest, status: int) -> dict[str, Any] | None:
        """The response object openapi.yaml documents for this request and status, or None."""
        template, item, _ = self.route(normalise_path(request.path))
        operation = self.operation(item, request.method) if template is not None else None
        responses = (operation or item.get("x-other-methods") or item)["responses"]
        return responses.get(str(status))

    def check_answer(self, request: RawRequest, answer: Answer, expected: Expected | None) -> list[str]:
        """Everything wrong with an answer: a 5xx, not the predicted status/error, not documented, not JSON."""
        if answer.error is not None:
            return [f"no answer ({answer.error})"]
        status = answer.status
        problems = self._status_problems(answer, expected)
        response = self.documented_response(request, status)
        if response is None:
            return problems + [f"HTTP {status} is not documented for {request.method} on this path"]
        problems += self._header_problems(answer, response)
        if request.method == "HEAD":
            if answer.body:
                problems.append(f"a HEAD answer with a body: {answer.body[:60]!r}")
            return problems
        return problems + self._body_problems(answer, response, expected)

    @staticmethod
    def _status_problems(answer: Answer, expected: Expected | None) -> list[str]:
        """A 5xx, a status other than the predicted one, or a failure for a valid request; and no JSON type."""
        status, problems = answer.status, []
        if status >= 500:
            problems.append(f"HTTP {status} (a 5xx)")
        if expected is not None and status != expected.status:
            problems.append(f"HTTP {status}, documented {expected.status} {expected.error}")
        if expected is None and not 200 <= status < 300 and status != 409:
            problems.append(f"HTTP {status} for a valid request")
        if "application/json" not in answer.headers.get("content-type", ""):
            problems.append(f"content-type {answer.headers.get('content-type')!r}, not application/json")
        return problems

    def _header_problems(self, answer: Answer, response: dict[str, Any]) -> list[str]:
        """The documented headers of the response (e.g. a 405's `Allow`): missing or not what is documented."""
        problems = []
        for header, spec in response.get("headers", {}).items():
            value = answer.headers.get(header.lower())
            if value is None:
                problems.append(f"the documented {header} header is missing")
            elif not self.validator(spec["schema"]).is_valid(value):
                problems.append(f"{header}: {value!r} is not what is documented")
        return problems

    def _body_problems(self, answer: Answer, response: dict[str, Any], expected: Expected | None) -> list[str]:
        """The body: JSON, valid against the documented schema, and exactly the predicted error."""
        try:
            payload = json.loads(answer.body)
        except ValueError:
            return [f"the body is not JSON: {answer.body[:80]!r}"]
        problems = []
        schema = response["content"]["application/json"]["schema"]
        errors = [e.message for e in self.validator(schema).iter_errors(payload)]
        if errors:
            problems.append(f"the body {payload!r} does not match the documented schema: {errors[0]}")
        if expected is not None and payload != {"error": expected.error}:
            problems.append(f"the body {payload!r}, documented {{'error': {expected.error!r}}}")
        return problems
