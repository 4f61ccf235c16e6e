// Test harness for Durable Objects under plain Node 22.
//
// Provides the pieces of `cloudflare:workers` the Worker needs (DurableObject,
// plus minimal WorkerEntrypoint/RpcTarget) and an in-process Durable Object
// namespace whose `ctx.storage.sql` is a real in-memory SQLite database from
// Node's built-in `node:sqlite`.
//
// Fidelity notes (kept close to the workerd behaviour the Worker relies on):
// - `sql.exec(query, ...bindings)` runs one statement eagerly and returns a cursor
//   with `toArray()`, `one()` (throws unless exactly one row), `raw()`, `next()`,
//   iteration, `columnNames`, `rowsRead` and `rowsWritten`.
// - Transaction statements (BEGIN/COMMIT/ROLLBACK/SAVEPOINT/RELEASE) are refused
//   in `sql.exec`, as in workerd; use `storage.transactionSync(fn)`.
// - `transactionSync(fn)` is BEGIN / COMMIT, ROLLBACK when fn throws, and uses
//   savepoints when nested. It refuses async callbacks.
// - `blockConcurrencyWhile(fn)` awaits fn; calls through the stub wait until every
//   pending blockConcurrencyWhile has settled (the input gate).
// - `getByName(name)` always returns a stub for the same object; the object is
//   constructed once, lazily on the first call, like a real Durable Object id.
// - Stub method calls return Promises and their results are structured-cloned, as
//   RPC serialises them (so SQLite's null-prototype rows become plain objects).
// - Integers come back as JS numbers (node:sqlite's default; readBigInts is off).
import { DatabaseSync } from "node:sqlite";

export class DurableObject {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
  }
}

export class WorkerEntrypoint {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
  }
}

export class RpcTarget {}

const TRANSACTION_STATEMENT = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

/** A cursor over rows already produced by one statement. */
export class SqlCursor {
  #rows;
  #index = 0;

  constructor(rows, columnNames, rowsWritten) {
    // Copy into plain objects so callers see ordinary records.
    this.#rows = rows.map((row) => ({ ...row }));
    this.columnNames = columnNames;
    this.rowsRead = rows.length;
    this.rowsWritten = rowsWritten;
  }

  next() {
    if (this.#index < this.#rows.length) return { done: false, value: this.#rows[this.#index++] };
    return { done: true, value: undefined };
  }

  [Symbol.iterator]() {
    return this;
  }

  toArray() {
    const rest = this.#rows.slice(this.#index);
    this.#index = this.#rows.length;
    return rest;
  }

  one() {
    const rest = this.toArray();
    if (rest.length === 0) {
      throw new Error("Expected exactly one result from SQL query, but got no results.");
    }
    if (rest.length > 1) {
      throw new Error("Expected exactly one result from SQL query, but got multiple results.");
    }
    return rest[0];
  }

  raw() {
    const names = this.columnNames;
    const cursor = this;
    return {
      next() {
        const step = cursor.next();
        return step.done ? step : { done: false, value: names.map((name) => step.value[name]) };
      },
      [Symbol.iterator]() {
        return this;
      },
      toArray() {
        return cursor.toArray().map((row) => names.map((name) => row[name]));
      },
    };
  }
}

/** `ctx.storage.sql` backed by a node:sqlite database. */
export function createSqlStorage(db) {
  return {
    exec(query, ...bindings) {
      if (typeof query !== "string") throw new TypeError("sql.exec: query must be a string");
      if (TRANSACTION_STATEMENT.test(query)) {
        throw new Error(
          "To execute a transaction, please use the state.storage.transaction() or " +
            "state.storage.transactionSync() APIs instead of the SQL BEGIN TRANSACTION or " +
            "SAVEPOINT statements.",
        );
      }
      const statement = db.prepare(query);
      const columnNames = statement.columns().map((column) => column.name);
      const before = db.prepare("SELECT total_changes() AS n").get().n;
      const rows = statement.all(...bindings);
      const after = db.prepare("SELECT total_changes() AS n").get().n;
      return new SqlCursor(rows, columnNames, after - before);
    },
    get databaseSize() {
      const { page_count } = db.prepare("PRAGMA page_count").get();
      const { page_size } = db.prepare("PRAGMA page_size").get();
      return page_count * page_size;
    },
  };
}

/** `ctx.storage` with `sql` and `transactionSync`. */
export function createStorage(db) {
  let depth = 0;
  let savepointCounter = 0;
  return {
    sql: createSqlStorage(db),
    transactionSync(fn) {
      if (typeof fn !== "function") throw new TypeError("transactionSync: callback required");
      const outer = depth === 0;
      const savepoint = `harness_sp_${++savepointCounter}`;
      db.exec(outer ? "BEGIN" : `SAVEPOINT ${savepoint}`);
      depth++;
      let result;
      try {
        result = fn();
        if (result && typeof result.then === "function") {
          throw new TypeError("transactionSync callback must be synchronous");
        }
      } catch (error) {
        depth--;
        if (outer) db.exec("ROLLBACK");
        else db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
        throw error;
      }
      depth--;
      db.exec(outer ? "COMMIT" : `RELEASE ${savepoint}`);
      return result;
    },
  };
}

/** A DurableObjectState-like ctx over an existing database. */
export function createState(db, { id = { name: undefined, toString: () => "test-id" } } = {}) {
  let gate = Promise.resolve();
  const ctx = {
    id,
    storage: createStorage(db),
    blockConcurrencyWhile(fn) {
      const run = gate.then(() => fn());
      // Later calls wait for this one whatever its outcome; callers see its result.
      gate = run.then(
        () => undefined,
        () => undefined,
      );
      ctx.__ready = ctx.__ready.then(() => run);
      return run;
    },
    waitUntil() {},
    /** Resolves once every pending blockConcurrencyWhile has finished (rejects if one threw). */
    __ready: Promise.resolve(),
  };
  return ctx;
}

function makeId(name) {
  return {
    name,
    toString: () => `test-id:${name}`,
    equals: (other) => other?.name === name,
  };
}

/**
 * An in-process Durable Object namespace.
 *
 * @param ObjectClass the Durable Object class to instantiate
 * @param env the env each object receives (usually the same env the Worker gets)
 */
export function createTestNamespace(ObjectClass, env = {}) {
  const databases = new Map(); // name -> DatabaseSync (survives restarts)
  const instances = new Map(); // name -> { object, ctx }
  let constructions = 0;

  function database(name) {
    let db = databases.get(name);
    if (!db) {
      db = new DatabaseSync(":memory:");
      databases.set(name, db);
    }
    return db;
  }

  function instance(name) {
    let entry = instances.get(name);
    if (!entry) {
      const ctx = createState(database(name), { id: makeId(name) });
      const object = new ObjectClass(ctx, env);
      constructions++;
      entry = { object, ctx };
      instances.set(name, entry);
    }
    return entry;
  }

  function stub(name) {
    return new Proxy(
      {},
      {
        get(_target, property) {
          if (property === "then") return undefined; // a stub is not a thenable
          if (property === "id") return makeId(name);
          if (property === "name") return name;
          if (typeof property !== "string") return undefined;
          return async (...args) => {
            const { object, ctx } = instance(name);
            await ctx.__ready;
            const method = object[property];
            if (typeof method !== "function") {
              throw new TypeError(`The RPC receiver does not implement the method "${property}".`);
            }
            const result = await method.apply(object, structuredClone(args));
            return result === undefined ? undefined : structuredClone(result);
          };
        },
      },
    );
  }

  return {
    getByName(name) {
      return stub(String(name));
    },
    idFromName(name) {
      return makeId(String(name));
    },
    get(id) {
      return stub(id.name);
    },
    // ---- test-only helpers ----
    /** The live object instance for a name (constructing it if needed). */
    instance(name) {
      return instance(name).object;
    },
    /** The SQLite database backing a name. */
    database,
    /** Drop the in-memory object; the next call constructs a new one over the same database. */
    restart(name) {
      instances.delete(name);
    },
    /** How many objects this namespace has constructed in total. */
    get constructions() {
      return constructions;
    },
  };
}

/** A Worker env whose WORKSHOPS binding is a test namespace of ObjectClass. */
export function createTestEnv(ObjectClass, bindingName = "WORKSHOPS") {
  const env = {};
  env[bindingName] = createTestNamespace(ObjectClass, env);
  return env;
}
