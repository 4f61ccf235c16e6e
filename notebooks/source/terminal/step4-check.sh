for attempt in $(seq 1 30); do
  curl --silent --fail http://127.0.0.1:8787/health && echo && break
  sleep 1
done
curl --silent http://127.0.0.1:8787/workshops/launch-day/status | jq
curl --silent --request POST http://127.0.0.1:8787/workshops/launch-day/reservations \
  --header 'content-type: application/json' \
  --data '{"requestId":"request-1","seats":1}' | jq
curl --silent --request POST http://127.0.0.1:8787/workshops/launch-day/reservations \
  --header 'content-type: application/json' \
  --data '{"requestId":"request-after-restart","seats":1}' | jq
curl --silent http://127.0.0.1:8787/workshops/launch-day/status | jq
