"""The domain layer: the lab itself — its constants (model), a run's folder and wrangler configs (from the
template worker/wrangler.jsonc), the Worker's HTTP client, bursts released together, the invariants and the
serial-order checker, throwaway runs with a server. May import `runtime`, `i18n`, `errors` and `paths`;
never `race`, `cloud`, `drills`, `course` or `cli`.
"""
