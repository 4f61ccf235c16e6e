DEPLOY_OUTPUT="$(npx wrangler deploy 2>&1 | tee /dev/stderr)"
APP_URL="$(printf '%s\n' "$DEPLOY_OUTPUT" | grep -Eo 'https://[a-z0-9.-]+\.workers\.dev' | tail -1)"
test -n "$APP_URL" &&
  curl --silent "$APP_URL/workshops/cloud-launch/status" | jq &&
  python -m reservation_lab verify deployed --workdir "$PWD" --app-url "$APP_URL" --burst-size 10
