"""The cloud layer (steps 5-7): wrangler login, whoami, deploy, readiness, exact cleanup and logout (`steps`), the
Cloudflare API client tested at the HTTP transport (`api`), and the independent verifier's checks (`verify`).
May import `domain`, `runtime`, `i18n`, `errors` and `paths`; not `race` nor anything above. The verifier's
command line lives in `reservation_lab.cli`, so `verify` never imports `steps` back.
"""
