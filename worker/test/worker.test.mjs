// Run: cd worker && NODE_NO_WARNINGS=1 node --experimental-loader ./test/cloudflare-loader.mjs --test test/worker.test.mjs
import { before, describe, it, mock } from "node:test";
import assert from "node:assert/strict";

import worker, { WorkshopReservations } from "../src/index.js";
import cleanup from "../src/cleanup.js";
import { CAPACITY, MAX_BODY_BYTES } from "../src/validation.js";
import { CHECK_FAILED } from "../src/front.js";
import { DurableObject, createState, createTestEnv } from "./do-harness.mjs";
import { DurableObject as ImportedDurableObject } from "cloudflare:workers";

const BASE = "http://lab.test";

/** Call the Worker with console.log captured; returns status, headers, parsed body and log lines. */
async function call(env, method, path, { body, headers } = {}) {
  const init = { method, headers };
  if (body !== undefined) {
    init.body = body;
    if (body instanceof ReadableStream) init.duplex = "half";
  }
  const logMock = mock.method(console, "log", () => {});
  let response;
  try {
    response = await worker.fetch(new Request(`${BASE}${path}`, init), env);
  } finally {
    logMock.mock.restore();
  }
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text === "" ? undefined : JSON.parse(text),
    logs: logMock.mock.calls.map((c) => c.arguments),
  };
}

function reserve(env, workshop, payload) {
  return call(env, "POST", `/workshops/${workshop}/reservations`, {
    body: typeof payload === "string" ? payload : JSON.stringify(payload),
    headers: { "content-type": "application/json" },
  });
}

async function status(env, workshop) {
  const res = await call(env, "GET", `/workshops/${workshop}/status`);
  assert.equal(res.status, 200);
  return res.body;
}

function attemptRows(env, workshop) {
  return env.WORKSHOPS.database(workshop)
    .prepare("SELECT request_id, seats, status, reserved_after FROM reservation_attempts ORDER BY rowid")
    .all()
    .map((row) => ({ ...row }));
}

/** Replaying `payload` answers 201 with the first accepted decision (`first`: its seats and reserved). */
async function assertReplayedAccepted(env, workshop, payload, first) {
  const replay = await reserve(env, workshop, payload);
  assert.equal(replay.status, 201);
  assert.deepEqual(replay.body, {
    workshop,
    requestId: payload.requestId,
    seats: first.seats,
    status: "accepted",
    capacity: CAPACITY,
    reserved: first.reserved,
    replayed: true,
  });
}

function assertJson(res) {
  assert.match(res.headers.get("content-type") ?? "", /^application\/json\b/);
}

// ---------------------------------------------------------------------------

describe("test harness", () => {
  it("maps cloudflare:workers to the harness DurableObject, which keeps ctx and env", () => {
    assert.equal(ImportedDurableObject, DurableObject);
    assert.ok(WorkshopReservations.prototype instanceof DurableObject);
    const env = createTestEnv(WorkshopReservations);
    const object = env.WORKSHOPS.instance("harness");
    assert.equal(object.env, env);
    assert.equal(typeof object.ctx.storage.sql.exec, "function");
  });

  it("getByName returns Promise-returning stubs over a single instance per name", async () => {
    const env = createTestEnv(WorkshopReservations);
    const a = env.WORKSHOPS.getByName("one");
    const b = env.WORKSHOPS.getByName("one");
    const pending = a.getStatus();
    assert.ok(pending instanceof Promise);
    await pending;
    await b.reserve("req-a", 2);
    assert.equal(env.WORKSHOPS.constructions, 1);
    assert.equal(env.WORKSHOPS.instance("one"), env.WORKSHOPS.instance("one"));
    assert.deepEqual(await a.getStatus(), {
      capacity: 4,
      reserved: 2,
      acceptedRequests: 1,
      rejectedRequests: 0,
      acceptedSeats: 2,
    });
    await assert.rejects(a.noSuchMethod(), TypeError);
  });

  it("returns numbers, not BigInt, and one() insists on exactly one row", async () => {
    const env = createTestEnv(WorkshopReservations);
    const result = await env.WORKSHOPS.getByName("numbers").reserve("req-n", 3);
    for (const key of ["seats", "capacity", "reserved"]) assert.equal(typeof result[key], "number");
    const state = await env.WORKSHOPS.getByName("numbers").getStatus();
    for (const value of Object.values(state)) assert.equal(typeof value, "number");

    const sql = env.WORKSHOPS.instance("numbers").ctx.storage.sql;
    assert.throws(() => sql.exec("SELECT 1 WHERE 0").one(), /exactly one/);
    assert.throws(() => sql.exec("SELECT 1 UNION ALL SELECT 2").one(), /exactly one/);
    assert.deepEqual([...sql.exec("SELECT 1 AS x UNION ALL SELECT 2")], [{ x: 1 }, { x: 2 }]);
    assert.throws(() => sql.exec("BEGIN"), /transaction/);
  });

  it("transactionSync rolls back when the callback throws", () => {
    const env = createTestEnv(WorkshopReservations);
    const { storage } = env.WORKSHOPS.instance("tx").ctx;
    storage.sql.exec("CREATE TABLE t (v INTEGER)");
    assert.throws(
      () =>
        storage.transactionSync(() => {
          storage.sql.exec("INSERT INTO t VALUES (1)");
          throw new Error("boom");
        }),
      /boom/,
    );
    assert.equal(storage.sql.exec("SELECT COUNT(*) AS n FROM t").one().n, 0);
    assert.equal(storage.transactionSync(() => storage.sql.exec("INSERT INTO t VALUES (2)").rowsWritten), 1);
    assert.equal(storage.sql.exec("SELECT COUNT(*) AS n FROM t").one().n, 1);
  });
});

// ---------------------------------------------------------------------------

describe("GET /health", () => {
  it("answers 200 {status:ok}", async () => {
    const env = createTestEnv(WorkshopReservations);
    const res = await call(env, "GET", "/health");
    assert.equal(res.status, 200);
    assertJson(res);
    assert.deepEqual(res.body, { status: "ok" });
  });

  for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
    it(`${method} /health is 405 with allow: GET`, async () => {
      const env = createTestEnv(WorkshopReservations);
      const res = await call(env, method, "/health");
      assert.equal(res.status, 405);
      assertJson(res);
      assert.equal(res.headers.get("allow"), "GET");
      assert.deepEqual(res.body, { error: "method_not_allowed" });
    });
  }
});

// ---------------------------------------------------------------------------

describe("reservations", () => {
  it("accepts the first four one-seat requests, rejects the fifth, and replays decisions", async () => {
    const env = createTestEnv(WorkshopReservations);
    const w = "intro-sql";

    for (let i = 1; i <= 4; i++) {
      const res = await reserve(env, w, { requestId: `req-${i}`, seats: 1 });
      assert.equal(res.status, 201, `request ${i}`);
      assertJson(res);
      assert.deepEqual(res.body, {
        workshop: w,
        requestId: `req-${i}`,
        seats: 1,
        status: "accepted",
        capacity: 4,
        reserved: i,
        replayed: false,
      });
    }

    const fifth = await reserve(env, w, { requestId: "req-5", seats: 1 });
    assert.equal(fifth.status, 409);
    assert.deepEqual(fifth.body, {
      workshop: w,
      requestId: "req-5",
      seats: 1,
      status: "rejected",
      capacity: 4,
      reserved: 4,
      replayed: false,
    });

    const expectedStatus = {
      workshop: w,
      capacity: 4,
      reserved: 4,
      acceptedRequests: 4,
      rejectedRequests: 1,
      acceptedSeats: 4,
    };
    assert.deepEqual(await status(env, w), expectedStatus);
    const rowsBefore = attemptRows(env, w);
    assert.equal(rowsBefore.length, 5);

    // Replay of an accepted request: same decision (reserved as it was then), replayed:true.
    await assertReplayedAccepted(env, w, { requestId: "req-2", seats: 1 }, { seats: 1, reserved: 2 });

    // A replay with a different seat count still returns the first decision.
    await assertReplayedAccepted(env, w, { requestId: "req-3", seats: 4 }, { seats: 1, reserved: 3 });

    // Replay of a rejected request stays rejected.
    const replayRejected = await reserve(env, w, { requestId: "req-5", seats: 1 });
    assert.equal(replayRejected.status, 409);
    assert.deepEqual(replayRejected.body, { ...fifth.body, replayed: true });

    // No new attempt rows, totals unchanged.
    assert.deepEqual(attemptRows(env, w), rowsBefore);
    assert.deepEqual(await status(env, w), expectedStatus);
  });

  it("handles mixed seat sizes: 3 accepted, 2 rejected, 1 accepted, 1 rejected", async () => {
    const env = createTestEnv(WorkshopReservations);
    const w = "mixed";
    const steps = [
      { requestId: "big-three", seats: 3, code: 201, status: "accepted", reserved: 3 },
      { requestId: "two-more", seats: 2, code: 409, status: "rejected", reserved: 3 },
      { requestId: "last-one", seats: 1, code: 201, status: "accepted", reserved: 4 },
      { requestId: "too-late", seats: 1, code: 409, status: "rejected", reserved: 4 },
    ];
    for (const step of steps) {
      const res = await reserve(env, w, { requestId: step.requestId, seats: step.seats });
      assert.equal(res.status, step.code, step.requestId);
      assert.deepEqual(res.body, {
        workshop: w,
        requestId: step.requestId,
        seats: step.seats,
        status: step.status,
        capacity: 4,
        reserved: step.reserved,
        replayed: false,
      });
    }
    assert.deepEqual(await status(env, w), {
      workshop: w,
      capacity: 4,
      reserved: 4,
      acceptedRequests: 2,
      rejectedRequests: 2,
      acceptedSeats: 4,
    });
    assert.deepEqual(attemptRows(env, w), [
      { request_id: "big-three", seats: 3, status: "accepted", reserved_after: 3 },
      { request_id: "two-more", seats: 2, status: "rejected", reserved_after: 3 },
      { request_id: "last-one", seats: 1, status: "accepted", reserved_after: 4 },
      { request_id: "too-late", seats: 1, status: "rejected", reserved_after: 4 },
    ]);
  });

  it("accepts exactly the capacity in one request, then rejects any more", async () => {
    const env = createTestEnv(WorkshopReservations);
    const all = await reserve(env, "full-house", { requestId: "everyone", seats: CAPACITY });
    assert.equal(all.status, 201);
    assert.equal(all.body.reserved, 4);
    const more = await reserve(env, "full-house", { requestId: "one-more", seats: 1 });
    assert.equal(more.status, 409);
    assert.equal(more.body.reserved, 4);
  });

  it("a fresh workshop starts at capacity 4 with nothing reserved", async () => {
    const env = createTestEnv(WorkshopReservations);
    assert.deepEqual(await status(env, "brand-new"), {
      workshop: "brand-new",
      capacity: 4,
      reserved: 0,
      acceptedRequests: 0,
      rejectedRequests: 0,
      acceptedSeats: 0,
    });
  });

  it("separate workshop names are separate objects with separate request ids", async () => {
    const env = createTestEnv(WorkshopReservations);
    assert.equal((await reserve(env, "alpha", { requestId: "shared-id", seats: 4 })).status, 201);
    const beta = await reserve(env, "beta", { requestId: "shared-id", seats: 2 });
    assert.equal(beta.status, 201);
    assert.equal(beta.body.replayed, false);
    assert.equal(beta.body.reserved, 2);
    assert.notEqual(env.WORKSHOPS.instance("alpha"), env.WORKSHOPS.instance("beta"));
    assert.equal((await status(env, "alpha")).reserved, 4);
    assert.equal((await status(env, "beta")).reserved, 2);
    assert.equal((await status(env, "gamma")).reserved, 0);
  });

  it("a percent-encoded valid name routes to the same object as its decoded form", async () => {
    const env = createTestEnv(WorkshopReservations);
    assert.equal((await reserve(env, "%61bc", { requestId: "req-enc", seats: 1 })).status, 201);
    assert.equal((await status(env, "abc")).reserved, 1);
  });

  it("accepts a body streamed without content-length", async () => {
    const env = createTestEnv(WorkshopReservations);
    const bytes = new TextEncoder().encode(JSON.stringify({ requestId: "streamed", seats: 2 }));
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(bytes.slice(0, 5));
        controller.enqueue(bytes.slice(5));
        controller.close();
      },
    });
    const res = await call(env, "POST", "/workshops/streams/reservations", { body: stream });
    assert.equal(res.status, 201);
    assert.equal(res.body.reserved, 2);
  });

  it(`accepts a body of exactly ${MAX_BODY_BYTES} bytes`, async () => {
    const env = createTestEnv(WorkshopReservations);
    const json = JSON.stringify({ requestId: "padded", seats: 1 });
    const body = json + " ".repeat(MAX_BODY_BYTES - json.length);
    assert.equal(Buffer.byteLength(body), MAX_BODY_BYTES);
    const res = await call(env, "POST", "/workshops/limits/reservations", {
      body,
      headers: { "content-length": String(MAX_BODY_BYTES) },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.reserved, 1);
  });
});

// ---------------------------------------------------------------------------

describe("a service the object awaits fails", () => {
  class CheckFails extends WorkshopReservations {
    async reserve(requestId) {
      throw new Error(`${CHECK_FAILED} ${requestId}`);
    }
  }
  class Bug extends WorkshopReservations {
    async reserve() {
      throw new Error("a bug in reserve");
    }
  }

  it("a failed check is 503 check_failed, as JSON, and records no attempt", async () => {
    const env = createTestEnv(CheckFails);
    const res = await reserve(env, "alpha", { requestId: "req-1", seats: 1 });
    assert.equal(res.status, 503);
    assertJson(res);
    assert.deepEqual(res.body, { error: "check_failed" });
    assert.deepEqual(attemptRows(env, "alpha"), []);
  });

  it("any other error of the object is not hidden behind a 503", async () => {
    const env = createTestEnv(Bug);
    await assert.rejects(reserve(env, "alpha", { requestId: "req-1", seats: 1 }), /a bug in reserve/);
  });
});

// ---------------------------------------------------------------------------

describe("safe initialisation", () => {
  it("a restarted object over the same database keeps its reservations", async () => {
    const env = createTestEnv(WorkshopReservations);
    const w = "restart-me";
    assert.equal((await reserve(env, w, { requestId: "before-a", seats: 2 })).status, 201);
    assert.equal((await reserve(env, w, { requestId: "before-b", seats: 1 })).status, 201);
    const first = env.WORKSHOPS.instance(w);

    env.WORKSHOPS.restart(w);
    const afterRestart = await status(env, w);
    assert.notEqual(env.WORKSHOPS.instance(w), first, "a new instance was constructed");
    assert.equal(env.WORKSHOPS.constructions, 2);
    assert.deepEqual(afterRestart, {
      workshop: w,
      capacity: 4,
      reserved: 3,
      acceptedRequests: 2,
      rejectedRequests: 0,
      acceptedSeats: 3,
    });

    // Replays and new decisions continue from the stored state.
    const replay = await reserve(env, w, { requestId: "before-a", seats: 2 });
    assert.equal(replay.body.replayed, true);
    assert.equal(replay.body.reserved, 2);
    assert.equal((await reserve(env, w, { requestId: "after-two", seats: 2 })).status, 409);
    const last = await reserve(env, w, { requestId: "after-one", seats: 1 });
    assert.equal(last.status, 201);
    assert.equal(last.body.reserved, 4);

    // And a second restart still does not reset anything.
    env.WORKSHOPS.restart(w);
    assert.equal((await status(env, w)).reserved, 4);
  });

  it("constructing the class twice directly over one database does not reset reserved", async () => {
    const env = createTestEnv(WorkshopReservations);
    const db = env.WORKSHOPS.database("direct");
    const ctx1 = createState(db);
    const one = new WorkshopReservations(ctx1, env);
    await ctx1.__ready;
    assert.equal(one.reserve("direct-a", 3).reserved, 3);

    const ctx2 = createState(db);
    const two = new WorkshopReservations(ctx2, env);
    await ctx2.__ready;
    const state = two.getStatus();
    assert.equal(state.reserved, 3);
    assert.equal(state.capacity, 4);
    assert.equal(db.prepare("SELECT COUNT(*) AS n FROM workshop_state").get().n, 1);
  });
});

// ---------------------------------------------------------------------------

describe("client errors", () => {
  const name33 = "a" + "b".repeat(32);
  const name32 = "a" + "b".repeat(31);
  const id49 = "r" + "x".repeat(48);
  const id48 = "r" + "x".repeat(47);
  const oversized = JSON.stringify({ requestId: "huge", seats: 1, pad: "x".repeat(MAX_BODY_BYTES) });

  const GUARD = "guarded";
  const R = `/workshops/${GUARD}/reservations`;
  const S = `/workshops/${GUARD}/status`;
  const post = (path, body, extra = {}) => ({ method: "POST", path, body, ...extra });
  const reservation = (value) => post(R, JSON.stringify(value));

  const cases = [
    // invalid_workshop_name (400)
    ["uppercase name", post("/workshops/Intro/reservations", '{"requestId":"abc","seats":1}'), 400, "invalid_workshop_name"],
    ["uppercase name on status", { method: "GET", path: "/workshops/INTRO/status" }, 400, "invalid_workshop_name"],
    ["33-char name", { method: "GET", path: `/workshops/${name33}/status` }, 400, "invalid_workshop_name"],
    ["name starts with digit", { method: "GET", path: "/workshops/1intro/status" }, 400, "invalid_workshop_name"],
    ["name starts with hyphen", { method: "GET", path: "/workshops/-intro/status" }, 400, "invalid_workshop_name"],
    ["percent-encoded slash", { method: "GET", path: "/workshops/a%2Fb/status" }, 400, "invalid_workshop_name"],
    ["invalid percent escape", post("/workshops/%E0%A4%A/reservations", '{"requestId":"abc","seats":1}'), 400, "invalid_workshop_name"],
    ["lone percent", { method: "GET", path: "/workshops/%/status" }, 400, "invalid_workshop_name"],
    ["name is a space", { method: "GET", path: "/workshops/%20/status" }, 400, "invalid_workshop_name"],
    ["name is a NUL", { method: "GET", path: "/workshops/%00/status" }, 400, "invalid_workshop_name"],
    ["name with underscore", { method: "GET", path: "/workshops/intro_sql/status" }, 400, "invalid_workshop_name"],
    ["non-ASCII name", { method: "GET", path: "/workshops/caf%C3%A9/status" }, 400, "invalid_workshop_name"],
    ["bad name wins over bad method", { method: "DELETE", path: "/workshops/BAD/status" }, 400, "invalid_workshop_name"],
    ["bad name wins over bad body", post("/workshops/BAD/reservations", "not json"), 400, "invalid_workshop_name"],

    // invalid_json (400)
    ["not JSON", post(R, "seats=1"), 400, "invalid_json"],
    ["empty body", post(R, ""), 400, "invalid_json"],
    ["no body at all", { method: "POST", path: R }, 400, "invalid_json"],
    ["truncated JSON", post(R, '{"requestId":"abc","seats":1'), 400, "invalid_json"],
    ["single-quoted JSON", post(R, "{'requestId':'abc','seats':1}"), 400, "invalid_json"],

    // invalid_reservation (400)
    ["missing requestId", reservation({ seats: 1 }), 400, "invalid_reservation"],
    ["missing seats", reservation({ requestId: "abc" }), 400, "invalid_reservation"],
    ["seats 0", reservation({ requestId: "abc", seats: 0 }), 400, "invalid_reservation"],
    ["seats 5", reservation({ requestId: "abc", seats: 5 }), 400, "invalid_reservation"],
    ["seats -1", reservation({ requestId: "abc", seats: -1 }), 400, "invalid_reservation"],
    ["seats 1.5", reservation({ requestId: "abc", seats: 1.5 }), 400, "invalid_reservation"],
    ['seats "1"', reservation({ requestId: "abc", seats: "1" }), 400, "invalid_reservation"],
    ["seats null", reservation({ requestId: "abc", seats: null }), 400, "invalid_reservation"],
    ["seats true", reservation({ requestId: "abc", seats: true }), 400, "invalid_reservation"],
    ["seats [1]", reservation({ requestId: "abc", seats: [1] }), 400, "invalid_reservation"],
    ["seats 1e9", reservation({ requestId: "abc", seats: 1e9 }), 400, "invalid_reservation"],
    ['requestId "ab" (too short)', reservation({ requestId: "ab", seats: 1 }), 400, "invalid_reservation"],
    ["requestId of 49 chars", reservation({ requestId: id49, seats: 1 }), 400, "invalid_reservation"],
    ["uppercase requestId", reservation({ requestId: "Req-1", seats: 1 }), 400, "invalid_reservation"],
    ["requestId starts with digit", reservation({ requestId: "1req", seats: 1 }), 400, "invalid_reservation"],
    ["requestId with space", reservation({ requestId: "req 1", seats: 1 }), 400, "invalid_reservation"],
    ["numeric requestId", reservation({ requestId: 12345, seats: 1 }), 400, "invalid_reservation"],
    ["requestId null", reservation({ requestId: null, seats: 1 }), 400, "invalid_reservation"],
    ["requestId as array", reservation({ requestId: ["abc"], seats: 1 }), 400, "invalid_reservation"],
    ["body is an array", reservation([{ requestId: "abc", seats: 1 }]), 400, "invalid_reservation"],
    ["body is null", post(R, "null"), 400, "invalid_reservation"],
    ["body is a number", post(R, "42"), 400, "invalid_reservation"],
    ["body is a string", post(R, '"abc"'), 400, "invalid_reservation"],
    ["body is true", post(R, "true"), 400, "invalid_reservation"],
    ["body is empty object", post(R, "{}"), 400, "invalid_reservation"],

    // not_found (404)
    ["root", { method: "GET", path: "/" }, 404, "not_found"],
    ["unknown path", { method: "GET", path: "/nope" }, 404, "not_found"],
    ["/workshops", { method: "GET", path: "/workshops" }, 404, "not_found"],
    ["/workshops/x", { method: "GET", path: "/workshops/x" }, 404, "not_found"],
    ["/workshops/x/other", { method: "GET", path: "/workshops/x/other" }, 404, "not_found"],
    ["trailing slash on status", { method: "GET", path: `${S}/` }, 404, "not_found"],
    ["trailing slash on reservations", post(`${R}/`, '{"requestId":"abc","seats":1}'), 404, "not_found"],
    ["extra segment", { method: "GET", path: `${S}/more` }, 404, "not_found"],
    ["empty name", { method: "GET", path: "/workshops//status" }, 404, "not_found"],
    ["/health/", { method: "GET", path: "/health/" }, 404, "not_found"],
    ["upper-case action", { method: "GET", path: `/workshops/${GUARD}/STATUS` }, 404, "not_found"],

    // method_not_allowed (405)
    ["GET on reservations", { method: "GET", path: R }, 405, "method_not_allowed", "POST"],
    ["PUT on reservations", post(R, '{"requestId":"abc","seats":1}', { method: "PUT" }), 405, "method_not_allowed", "POST"],
    ["DELETE on reservations", { method: "DELETE", path: R }, 405, "method_not_allowed", "POST"],
    ["POST on status", post(S, '{"requestId":"abc","seats":1}'), 405, "method_not_allowed", "GET"],
    ["PUT on status", post(S, "{}", { method: "PUT" }), 405, "method_not_allowed", "GET"],
    ["DELETE on status", { method: "DELETE", path: S }, 405, "method_not_allowed", "GET"],

    // payload_too_large (413)
    ["oversized body with content-length", post(R, oversized, { headers: { "content-length": String(Buffer.byteLength(oversized)) } }), 413, "payload_too_large"],
    ["oversized string body (Request sets no content-length header)", post(R, oversized), 413, "payload_too_large"],
    ["declared content-length too large", post(R, '{"requestId":"abc","seats":1}', { headers: { "content-length": "1000000" } }), 413, "payload_too_large"],
    [`${MAX_BODY_BYTES + 1} bytes`, post(R, " ".repeat(MAX_BODY_BYTES + 1)), 413, "payload_too_large"],
  ];

  describe("table of bad requests against one seeded object", () => {
    const env = createTestEnv(WorkshopReservations);
    let baseline;
    let rowsBefore;
    let constructionsBefore;

    before(async () => {
      // Put the guarded object into a non-trivial state first.
      assert.equal((await reserve(env, GUARD, { requestId: "seed-one", seats: 2 })).status, 201);
      assert.equal((await reserve(env, GUARD, { requestId: "seed-two", seats: 3 })).status, 409);
      baseline = await status(env, GUARD);
      rowsBefore = attemptRows(env, GUARD);
      constructionsBefore = env.WORKSHOPS.constructions;
    });

    for (const [label, request, code, error, allow] of cases) {
      it(`${label} -> ${code} ${error}`, async () => {
        const res = await call(env, request.method, request.path, {
          body: request.body,
          headers: request.headers,
        });
        assert.equal(res.status, code);
        assertJson(res);
        assert.deepEqual(res.body, { error });
        assert.equal(res.headers.get("allow"), allow ?? null);
        assert.deepEqual(res.logs, [], "nothing logged");
      });
    }

    it("after all bad requests the object's status and attempt log are unchanged", async () => {
      assert.deepEqual(baseline, {
        workshop: GUARD,
        capacity: 4,
        reserved: 2,
        acceptedRequests: 1,
        rejectedRequests: 1,
        acceptedSeats: 2,
      });
      assert.deepEqual(await status(env, GUARD), baseline);
      assert.deepEqual(attemptRows(env, GUARD), rowsBefore);
      // No bad request created any other object.
      assert.equal(env.WORKSHOPS.constructions, constructionsBefore);
    });

    it("boundary values just inside the rules are accepted", async () => {
      assert.equal((await reserve(env, name32, { requestId: id48, seats: 1 })).status, 201);
      assert.equal((await reserve(env, name32, { requestId: "abc", seats: 1 })).status, 201);
      assert.equal((await status(env, name32)).reserved, 2);
    });
  });

  it("returns 413 for a streamed body over the limit without content-length, and cancels the stream", async () => {
    const env = createTestEnv(WorkshopReservations);
    let cancelled = false;
    let pulls = 0;
    const chunk = new Uint8Array(1024).fill(0x20);
    const stream = new ReadableStream({
      pull(controller) {
        pulls++;
        if (pulls > 100) controller.close(); // would be 100 KiB if read to the end
        else controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request(`${BASE}/workshops/stream-limit/reservations`, {
      method: "POST",
      body: stream,
      duplex: "half",
    });
    assert.equal(request.headers.get("content-length"), null);
    const logMock = mock.method(console, "log", () => {});
    let response;
    try {
      response = await worker.fetch(request, env);
    } finally {
      logMock.mock.restore();
    }
    assert.equal(response.status, 413);
    assert.deepEqual(await response.json(), { error: "payload_too_large" });
    assert.equal(cancelled, true, "the body stream was cancelled");
    assert.ok(pulls < 100, `stopped reading early (pulled ${pulls} chunks)`);
    assert.equal(logMock.mock.callCount(), 0);
    assert.equal((await status(env, "stream-limit")).reserved, 0);
  });
});

// ---------------------------------------------------------------------------

describe("reservation_decided log line", () => {
  it("logs exactly one JSON line per decision, including rejections and replays", async () => {
    const env = createTestEnv(WorkshopReservations);
    const w = "logging";
    const expectations = [
      [{ requestId: "log-one", seats: 3 }, { status: "accepted", reserved: 3, seats: 3, replayed: false }],
      [{ requestId: "log-two", seats: 2 }, { status: "rejected", reserved: 3, seats: 2, replayed: false }],
      [{ requestId: "log-one", seats: 3 }, { status: "accepted", reserved: 3, seats: 3, replayed: true }],
    ];
    for (const [payload, expected] of expectations) {
      const res = await reserve(env, w, payload);
      assert.equal(res.logs.length, 1, "one console.log call");
      assert.equal(res.logs[0].length, 1, "a single argument");
      const [line] = res.logs[0];
      assert.equal(typeof line, "string");
      assert.ok(!line.includes("\n"), "a single line");
      assert.deepEqual(JSON.parse(line), {
        event: "reservation_decided",
        workshop: w,
        requestId: payload.requestId,
        ...expected,
      });
    }
  });

  it("does not log for status reads or health checks", async () => {
    const env = createTestEnv(WorkshopReservations);
    assert.deepEqual((await call(env, "GET", "/workshops/quiet/status")).logs, []);
    assert.deepEqual((await call(env, "GET", "/health")).logs, []);
  });
});

// ---------------------------------------------------------------------------

describe("cleanup entry", () => {
  for (const [method, path] of [
    ["GET", "/"],
    ["GET", "/health"],
    ["POST", "/workshops/intro/reservations"],
    ["GET", "/workshops/intro/status"],
  ]) {
    it(`${method} ${path} answers 410 {status:cleanup}`, async () => {
      const init = { method };
      if (method === "POST") init.body = '{"requestId":"abc","seats":1}';
      const response = await cleanup.fetch(new Request(`${BASE}${path}`, init), {});
      assert.equal(response.status, 410);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json\b/);
      assert.deepEqual(await response.json(), { status: "cleanup" });
    });
  }
});
