// The front Worker shared by index.js and naive.js: it validates and routes, the Durable Object decides.
import { MAX_BODY_BYTES, isValidReservation, parseWorkshopRoute } from "./validation.js";

/** How an object's error starts when a service it awaits failed (front answers 503 check_failed). */
export const CHECK_FAILED = "check_failed:";

function json(data, status = 200, headers = {}) {
  return Response.json(data, { status, headers });
}

function methodNotAllowed(allow) {
  return json({ error: "method_not_allowed" }, 405, { allow });
}

/** Read at most MAX_BODY_BYTES; returns null when the body is larger. */
async function readLimitedText(request) {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

async function handleReservation(request, env, workshop, logEvent) {
  const text = await readLimitedText(request);
  if (text === null) return json({ error: "payload_too_large" }, 413);
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return json({ error: "invalid_json" }, 400);
  }
  if (!isValidReservation(body)) return json({ error: "invalid_reservation" }, 400);
  let result;
  try {
    result = await env.WORKSHOPS.getByName(workshop).reserve(body.requestId, body.seats);
  } catch (error) {
    // A service the object awaits failed (the exercises' external check): nothing was decided, so the answer is
    // 503 and a retry of the same requestId decides anew. Any other error is a bug and stays one.
    if (String(error?.message).startsWith(CHECK_FAILED)) return json({ error: "check_failed" }, 503);
    throw error;
  }
  console.log(
    JSON.stringify({
      event: logEvent,
      workshop,
      requestId: result.requestId,
      seats: result.seats,
      status: result.status,
      reserved: result.reserved,
      replayed: result.replayed,
    }),
  );
  return json({ workshop, ...result }, result.status === "accepted" ? 201 : 409);
}

/** A Worker `fetch` handler over env.WORKSHOPS; `logEvent` names the decision log line. */
export function createFrontWorker(logEvent = "reservation_decided") {
  return {
    async fetch(request, env) {
      const url = new URL(request.url);
      if (url.pathname === "/health") {
        return request.method === "GET" ? json({ status: "ok" }) : methodNotAllowed("GET");
      }
      const route = parseWorkshopRoute(url.pathname);
      if (route.error) return json({ error: route.error }, route.status);
      if (route.action === "status") {
        if (request.method !== "GET") return methodNotAllowed("GET");
        const state = await env.WORKSHOPS.getByName(route.workshop).getStatus();
        return json({ workshop: route.workshop, ...state });
      }
      if (request.method !== "POST") return methodNotAllowed("POST");
      return handleReservation(request, env, route.workshop, logEvent);
    },
  };
}
