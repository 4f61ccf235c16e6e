DEPLOY_OUTPUT="$(npx wrangler deploy 2>&1 | tee /dev/stderr)"
APP_URL="$(printf '%s\n' "$DEPLOY_OUTPUT" | grep -Eo 'https://[a-z0-9.-]+\.workers\.dev' | tail -1)"
test -n "$APP_URL" &&
  printf '%s\n' "$APP_URL" &&
  for attempt in $(seq 1 30); do
    if curl --silent --fail "$APP_URL/workshops/readiness/status" |
      jq -e '.capacity == 4 and .reserved == 0' >/dev/null; then
      break
    fi
    sleep 1
  done &&
  curl --silent --fail "$APP_URL/workshops/readiness/status" |
  jq -e '.capacity == 4 and .reserved == 0' &&
  sleep 5 &&
  rm -f cloud-response-*.json &&
  seq 1 10 | xargs -P 10 -I{} sh -c '
    curl --silent \
      --request POST "$0/workshops/cloud-launch/reservations" \
      --header "content-type: application/json" \
      --data "{\"requestId\":\"cloud-request-$1\",\"seats\":1}" \
      > "cloud-response-$1.json"
  ' "$APP_URL" {} &&
  jq -s '{
    accepted: map(select(.status == "accepted")) | length,
    rejected: map(select(.status == "rejected")) | length,
    highestReserved: map(.reserved) | max
  }' cloud-response-*.json &&
  curl --silent "$APP_URL/workshops/cloud-launch/status" | jq &&
  python -m reservation_lab verify deployed --workdir "$PWD" --app-url "$APP_URL" --burst-size 10
