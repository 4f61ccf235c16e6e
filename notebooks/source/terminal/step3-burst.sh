for attempt in $(seq 1 30); do
  curl --silent --fail http://127.0.0.1:8787/health && echo && break
  sleep 1
done
rm -f local-response-*.json
seq 1 10 | xargs -P 10 -I{} sh -c '
  curl --silent \
    --request POST http://127.0.0.1:8787/workshops/launch-day/reservations \
    --header "content-type: application/json" \
    --data "{\"requestId\":\"request-$1\",\"seats\":1}" \
    > "local-response-$1.json"
' _ {}
jq -s 'sort_by(.requestId)' local-response-*.json
jq -s '{
  accepted: map(select(.status == "accepted")) | length,
  rejected: map(select(.status == "rejected")) | length,
  highestReserved: map(.reserved) | max
}' local-response-*.json
curl --silent http://127.0.0.1:8787/workshops/launch-day/status | jq
