// Node ESM loader: maps `cloudflare:workers` to a stand-in built on ./do-harness.mjs.
// Usage: node --experimental-loader ./test/cloudflare-loader.mjs --test test/worker.test.mjs
const STAND_IN_URL = "cloudflare:workers";
const HARNESS_URL = new URL("./do-harness.mjs", import.meta.url).href;

const STAND_IN_SOURCE = `
export { DurableObject, WorkerEntrypoint, RpcTarget } from ${JSON.stringify(HARNESS_URL)};
export const env = {};
export function waitUntil() {}
`;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "cloudflare:workers") {
    return { url: STAND_IN_URL, format: "module", shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url === STAND_IN_URL) {
    return { format: "module", source: STAND_IN_SOURCE, shortCircuit: true };
  }
  return nextLoad(url, context);
}
