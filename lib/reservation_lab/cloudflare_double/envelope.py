"""Cloudflare's v4 response envelope: {"success", "errors", "messages", "result"[, "result_info"]}.

Shape: wrangler's `createFetchResult` (workers-sdk packages/wrangler/src/__tests__/helpers/msw/index.ts) and the
bundle's `fetchResultBase`, which reads `success`, `errors[].code/message` and `result`.
"""

from __future__ import annotations

from typing import Any

Answer = tuple[int, Any]  # (HTTP status, JSON body)


def ok(result: Any, result_info: dict[str, Any] | None = None) -> Answer:
    body: dict[str, Any] = {"success": True, "errors": [], "messages": [], "result": result}
    if result_info is not None:
        body["result_info"] = result_info
    return 200, body


def error(status: int, code: int, text: str) -> Answer:
    return status, {"success": False, "errors": [{"code": code, "message": text}], "messages": [], "result": None}


def page(items: list[Any], number: int, per_page: int) -> Answer:
    """One page of a list, with result_info as Cloudflare's paginated endpoints give it."""
    start = (number - 1) * per_page
    chunk = items[start:start + per_page]
    total_pages = max(1, -(-len(items) // per_page))
    return ok(chunk, {"page": number, "per_page": per_page, "count": len(chunk), "total_count": len(items),
                      "total_pages": total_pages})
