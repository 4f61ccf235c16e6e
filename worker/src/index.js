// Reservation Worker: one SQLite-backed Durable Object per validated workshop name.
// The front Worker only validates and routes; the object does the whole
// check-and-write inside one synchronous SQLite transaction.
import { DurableObject } from "cloudflare:workers";
import { CAPACITY, MAX_BODY_BYTES, isValidReservation, parseWorkshopRoute } from "./validation.js";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS workshop_state (
     singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
     capacity  INTEGER NOT NULL CHECK (capacity > 0),
     reserved  INTEGER NOT NULL CHECK (reserved >= 0 AND reserved <= capacity)
   )`,
  `CREATE TABLE IF NOT EXISTS reservation_attempts (
     request_id     TEXT PRIMARY KEY,
     seats          INTEGER NOT NULL CHECK (seats > 0),
     status         TEXT NOT NULL CHECK (status IN ('accepted', 'rejected')),
     reserved_after INTEGER NOT NULL,
     created_at     INTEGER NOT NULL
   )`,
];

export class WorkshopReservations extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    // Runs on every cold start: creates what is missing, never resets what exists.
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      for (const statement of SCHEMA) sql.exec(statement);
      sql.exec(
        `INSERT INTO workshop_state (singleton, capacity, reserved)
         VALUES (1, ?, 0)
         ON CONFLICT(singleton) DO NOTHING`,
        CAPACITY,
      );
    });
  }

  /** Decide one reservation attempt atomically; a known requestId replays its first decision. */
  reserve(requestId, seats) {
    const { storage } = this.ctx;
    return storage.transactionSync(() => {
      const sql = storage.sql;
      const previous = sql
        .exec(
          `SELECT a.request_id AS requestId, a.seats, a.status,
                  a.reserved_after AS reserved, s.capacity
             FROM reservation_attempts AS a, workshop_state AS s
            WHERE a.request_id = ? AND s.singleton = 1`,
          requestId,
        )
        .toArray()[0];
      if (previous) return { ...previous, replayed: true };

      // Guarded update: only changes the row when the seats still fit.
      const updated = sql
        .exec(
          `UPDATE workshop_state
              SET reserved = reserved + ?
            WHERE singleton = 1 AND reserved + ? <= capacity
        RETURNING capacity, reserved`,
          seats,
          seats,
        )
        .toArray();
      const accepted = updated.length === 1;
      const state = accepted
        ? updated[0]
        : sql.exec(`SELECT capacity, reserved FROM workshop_state WHERE singleton = 1`).one();
      const status = accepted ? "accepted" : "rejected";
      sql.exec(
        `INSERT INTO reservation_attempts (request_id, seats, status, reserved_after, created_at)
         VALUES (?, ?, ?, ?, ?)`,
        requestId,
        seats,
        status,
        state.reserved,
        Date.now(),
      );
      return {
        requestId,
        seats,
        status,
        capacity: state.capacity,
        reserved: state.reserved,
        replayed: false,
      };
    });
  }

  /** Durable totals: the capacity row and the attempt log, read in one statement. */
  getStatus() {
    return this.ctx.storage.sql
      .exec(
        `SELECT s.capacity,
                s.reserved,
                COUNT(CASE WHEN a.status = 'accepted' THEN 1 END) AS acceptedRequests,
                COUNT(CASE WHEN a.status = 'rejected' THEN 1 END) AS rejectedRequests,
                COALESCE(SUM(CASE WHEN a.status = 'accepted' THEN a.seats END), 0) AS acceptedSeats
           FROM workshop_state AS s
           LEFT JOIN reservation_attempts AS a ON 1 = 1
          WHERE s.singleton = 1
          GROUP BY s.capacity, s.reserved`,
      )
      .one();
  }
}

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

async function handleReservation(request, env, workshop) {
  const text = await readLimitedText(request);
  if (text === null) return json({ error: "payload_too_large" }, 413);
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return json({ error: "invalid_json" }, 400);
  }
  if (!isValidReservation(body)) return json({ error: "invalid_reservation" }, 400);
  const result = await env.WORKSHOPS.getByName(workshop).reserve(body.requestId, body.seats);
  console.log(
    JSON.stringify({
      event: "reservation_decided",
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

export default {
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
    return handleReservation(request, env, route.workshop);
  },
};
