// Input rules of the reservation API, shared by the Worker and its node tests.
// (Kept out of index.js: a Worker's main module may only export handlers and classes.)

export const CAPACITY = 4;
export const MAX_SEATS = 4;
export const MAX_BODY_BYTES = 4096;
export const WORKSHOP_NAME = /^[a-z][a-z0-9-]{0,31}$/;
export const REQUEST_ID = /^[a-z][a-z0-9-]{2,47}$/;

/** Parse `/workshops/<name>/<action>`; the name is percent-decoded, then validated. */
export function parseWorkshopRoute(pathname) {
  const match = pathname.match(/^\/workshops\/([^/]+)\/(reservations|status)$/);
  if (!match) return { error: "not_found", status: 404 };
  let workshop;
  try {
    workshop = decodeURIComponent(match[1]);
  } catch {
    return { error: "invalid_workshop_name", status: 400 };
  }
  if (!WORKSHOP_NAME.test(workshop)) return { error: "invalid_workshop_name", status: 400 };
  return { workshop, action: match[2] };
}

/** A reservation body is an object with a valid string requestId and 1–4 integer seats. */
export function isValidReservation(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    typeof value.requestId === "string" &&
    REQUEST_ID.test(value.requestId) &&
    Number.isInteger(value.seats) &&
    value.seats >= 1 &&
    value.seats <= MAX_SEATS
  );
}
