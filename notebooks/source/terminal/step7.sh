RUN="$(basename "$PWD")"
ACCOUNT_ID="$(jq -r '.account_id // empty' wrangler.jsonc)"
test -n "$ACCOUNT_ID" &&
  printf '%s\n' "$RUN" | grep -Ex 'labex-c10-o03-[0-9a-f]{12}' &&
  jq --arg account "$ACCOUNT_ID" '.account_id = $account' wrangler.cleanup.jsonc > wrangler.cleanup.jsonc.new &&
  mv wrangler.cleanup.jsonc.new wrangler.cleanup.jsonc &&
  jq '{name, exports}' wrangler.cleanup.jsonc &&
  npx wrangler deploy --config wrangler.cleanup.jsonc &&
  npx wrangler delete --config wrangler.cleanup.jsonc &&
  python -m reservation_lab verify deleted --workdir "$PWD" &&
  npx wrangler logout
npx wrangler whoami --json
