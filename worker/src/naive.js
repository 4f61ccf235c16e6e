// ANTI-EXAMPLE — do not copy. LOCAL ONLY: served by `wrangler dev` to show the race, never deployed.
//
// Same routes, input rules, JSON shapes and status codes as index.js, but the Durable Object
// `NaiveWorkshop` does the classic broken read-modify-write:
//
//   1. read the counter with the async KV API   (await storage.get("reserved"))
//   2. wait for something that is not storage   (await a timer — think "call a payment API")
//   3. check capacity against the value read in 1 and write reserved + seats   (await storage.put)
//
// A Durable Object is single-threaded, but its requests interleave at awaits. While one awaits
// storage the input gate stays closed, so no other request is delivered; while it awaits a timer
// (or a fetch) the gate is open and the next request runs. Every request that arrives during step 2 reads the same old
// counter, so all of them pass the check (overbooking) and each writes "old + 1" over the others
// (lost updates). The correct object (index.js) does read, check and write in one synchronous
// transactionSync with a guarded UPDATE, and never awaits in between.
import { DurableObject } from "cloudflare:workers";
import { createFrontWorker } from "./front.js";
import { CAPACITY } from "./validation.js";

// The non-storage pause between read and write (10–19 ms, fixed per requestId so a run is repeatable):
// the length of a short call to another service. Locally a burst of 10 all lands inside it; even 2 ms
// does. Without this await (or with only `await Promise.resolve()`) the same get/put code stays correct,
// because awaiting storage alone never opens the input gate.
const PAUSE_MS = 10;
const JITTER_MS = 10;

function pauseFor(requestId) {
  let hash = 0;
  for (const char of requestId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PAUSE_MS + (hash % JITTER_MS);
}

export class NaiveWorkshop extends DurableObject {
  /** BROKEN on purpose: check and write are separated by an await that lets other requests in. */
  async reserve(requestId, seats) {
    const storage = this.ctx.storage;
    // Replay: a known requestId returns its first decision (itself racy — good enough here).
    const previous = await storage.get(`attempt:${requestId}`);
    if (previous) return { ...previous, replayed: true };

    const reserved = (await storage.get("reserved")) ?? 0; // 1. read
    await new Promise((resolve) => setTimeout(resolve, pauseFor(requestId))); // 2. input gate opens here
    const accepted = reserved + seats <= CAPACITY; // 3. check a value that may be stale by now …
    const after = accepted ? reserved + seats : reserved;
    if (accepted) await storage.put("reserved", after); // … and overwrite whatever others wrote
    const decision = {
      requestId,
      seats,
      status: accepted ? "accepted" : "rejected",
      capacity: CAPACITY,
      reserved: after,
    };
    await storage.put(`attempt:${requestId}`, decision);
    return { ...decision, replayed: false };
  }

  /** The counter as stored, and the attempt records summed up. */
  async getStatus() {
    const storage = this.ctx.storage;
    const reserved = (await storage.get("reserved")) ?? 0;
    const attempts = [...(await storage.list({ prefix: "attempt:" })).values()];
    const accepted = attempts.filter((a) => a.status === "accepted");
    return {
      capacity: CAPACITY,
      reserved,
      acceptedRequests: accepted.length,
      rejectedRequests: attempts.length - accepted.length,
      acceptedSeats: accepted.reduce((sum, a) => sum + a.seats, 0),
    };
  }
}

// The front Worker is the same as index.js's; only the class behind WORKSHOPS differs.
export default createFrontWorker("naive_reservation_decided");
