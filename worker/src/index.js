// Reservation Worker: one SQLite-backed Durable Object per validated workshop name.
// The front Worker only validates and routes; the object does the whole
// check-and-write inside one synchronous SQLite transaction.
import { DurableObject } from "cloudflare:workers";
import { createFrontWorker } from "./front.js";
import { CAPACITY } from "./validation.js";

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

export default createFrontWorker("reservation_decided");
