"""A stand-in for Cloudflare's REST API on loopback, driven by the real wrangler (the one permitted double).

Cloudflare cannot be reached from here, so steps 5-7 run against this: `state` is one account's Workers,
workers.dev subdomain and Durable Object namespaces; `envelope` the v4 response shapes; `api` answers the requests
the pinned wrangler 4.132.0 and the verifier make (each shape names its source beside it: wrangler's bundle, its
msw test handlers, Cloudflare's SDK types); `bundles` runs each uploaded Worker on real workerd (`wrangler dev`,
state kept across redeploys, removed with the namespace); `server` serves the API and the Workers' workers.dev
hosts on 127.0.0.1. Nothing leaves the machine. May import `domain`, `runtime`, `i18n`, `errors` and `paths`.
"""
