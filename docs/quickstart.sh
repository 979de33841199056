#!/usr/bin/env bash
# Tollgate's quick start: the main job in fourteen steps, against a real server. README.md shows its
# commands and the lines it prints; packages/server/test/quickstart.test.ts runs it and checks that
# the two agree.
#
#   bash docs/quickstart.sh
#       starts its own server (`tollgate serve`, SQLite in a temporary directory, on a free port of
#       127.0.0.1) and stops it at the end.
#   TOLLGATE_URL=http://127.0.0.1:8080 bash docs/quickstart.sh
#       uses a running server, such as `TOLLGATE_STRIPE_FAKE=true npm start`'s (step 13 needs the
#       Stripe fake that setting runs). Without TOLLGATE_KEY, step 1 makes a new demo
#       workspace with `npx tollgate demo --json`, on the database of DATABASE_URL, else of DATA_DIR
#       (default: ./data of the repository, the one `npm start` uses). Step 8's receiver listens on
#       http://127.0.0.1: a server outside the development profile refuses that URL.
#   TOLLGATE_KEY=sk_test_...
#       the test secret key of a fresh demo workspace (`npm start` prints one at its first start),
#       used instead of a new one. The figures printed are those of a fresh demo workspace.
#
# Needs bash, curl and node, in a checkout where `npm ci` ran; runs from any directory. Writes only
# into a temporary directory, removed at the end.
# shellcheck disable=SC2016 # The ${...} in single quotes are JavaScript's, for get and say.
set -euo pipefail

if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,/^# shellcheck /p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
T=$(mktemp -d "${TMPDIR:-/tmp}/tollgate-quickstart.XXXXXX")
SERVER_PID=''
RECEIVER_PID=''
# Stops what this script started, by PID, and removes its directory, however it ends.
finish() {
  if [ -n "$RECEIVER_PID" ]; then kill "$RECEIVER_PID" 2>/dev/null || true; fi
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$T"
}
trap finish EXIT
trap 'exit 130' INT TERM

# --- README.md shows the rest of this file, except the part marked "not shown". ---

# api METHOD PATH [JSON [CURL OPTIONS...]]: one call with your key; prints the JSON answer.
api() { curl -s -X "$1" "$TOLLGATE_URL$2" -H "Authorization: Bearer $TOLLGATE_KEY" -H 'Content-Type: application/json' ${3:+-d "$3"} "${@:4}"; }
# get EXPR: a JavaScript expression over the JSON on stdin (d). say TEXT: TEXT with its ${...} filled in.
get() { node -e 'const t = require("fs").readFileSync(0, "utf8"); let v; try { const d = JSON.parse(t); v = eval(process.argv[1]); } catch {}
  if (v === undefined) { console.error(`No ${process.argv[1]} in: ${t}`); process.exit(1); } console.log(v)' "$1"; }
say() { get "\`$1\`"; }
# wait_until SECONDS COMMAND...: runs COMMAND every tenth of a second until it succeeds, for at most SECONDS.
wait_until() { local n=$(($1 * 10)); until "${@:2}"; do n=$((n - 1)); [ $n -gt 0 ] || { echo "Gave up waiting for: ${*:2}" >&2; return 1; }; sleep 0.1; done; }

# --- not shown: without TOLLGATE_URL, a server of our own, on SQLite in the temporary directory. ---
if [ -z "${TOLLGATE_URL:-}" ]; then
  if [ -n "${TOLLGATE_KEY:-}" ]; then
    echo 'TOLLGATE_KEY is a key of the server at TOLLGATE_URL: give both, or neither (see --help).' >&2
    exit 2
  fi
  unset DATABASE_URL REDIS_URL
  export DATA_DIR="$T/data"
  HOST=127.0.0.1 PORT=0 LOG_LEVEL=warn SEED_DEMO=false TOLLGATE_PROFILE=development TOLLGATE_STRIPE_FAKE=true \
    node packages/server/bin/tollgate.js serve >"$T/server.log" 2>&1 &
  SERVER_PID=$!
  server_started() {
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      cat "$T/server.log" >&2
      exit 1
    fi
    grep -qs '^Tollgate is running at ' "$T/server.log"
  }
  # Only a bound on a hang: a first start may build the server and migrate, slowly on a busy machine.
  wait_until 180 server_started
  TOLLGATE_URL=$(sed -n 's/^Tollgate is running at \(http:[^ ]*\) .*/\1/p' "$T/server.log")
  wait_until 30 curl -sf -o /dev/null "$TOLLGATE_URL/health"
fi
# --- shown ---

TOLLGATE_URL=${TOLLGATE_URL:-http://127.0.0.1:8080}
T=${T:-$(mktemp -d)}

# 1. A demo workspace (a product, four offerings, the customer acme on Pro) and its test secret key.
TOLLGATE_KEY=${TOLLGATE_KEY:-$(npx tollgate demo --json | get d.environments.test.secretKey)}
api GET "/api/v1/subscriptions?customerId=$(api GET '/api/v1/customers?externalId=acme' | get 'd.data[0].id')" >"$T/subs.json"
SUB=$(get 'd.data[0].id' <"$T/subs.json")
PRODUCT=$(get 'd.data[0].productId' <"$T/subs.json")
api GET "/api/v1/offerings/$(get 'd.data[0].offeringId' <"$T/subs.json")" | say '1. acme is on ${d.name}: ${d.entryPrice} ${d.currency} a month'

# 2. Send usage for acme (by the id you gave it); a retry with the same X-Idempotency-Key is stored once.
NOW=$(node -p 'new Date().toISOString()') # to the millisecond: acme's period may have begun this second
EVENTS="{\"events\": [{\"customerId\": \"acme\", \"metricName\": \"api_calls\", \"quantity\": 1, \"occurredAt\": \"$NOW\"},
  {\"customerId\": \"acme\", \"metricName\": \"tokens\", \"quantity\": 1200, \"occurredAt\": \"$NOW\"}]}"
api POST /v1/ingest/batch "$EVENTS" -H 'X-Idempotency-Key: usage-1' | say '2. usage: ${d.accepted} accepted, ${d.duplicates} duplicates'
api POST /v1/ingest/batch "$EVENTS" -H 'X-Idempotency-Key: usage-1' | say '2. the same request again: idempotentReplay=${d.idempotentReplay}'

# 3. A misspelt metric: the batch is refused, naming the event and its field; nothing of it is stored.
api POST /v1/ingest/batch "${EVENTS/api_calls/api_call}" | say '3. refused: ${d.errors[0].code} at ${d.errors[0].field}'

# 4. May acme go on? Asked as your gateway would (read-only). quotaRemaining: Pro's included calls left.
api GET "/v1/entitlements/check?accessorId=acme&productId=$PRODUCT" | say '4. allowed=${d.allowed} reason=${d.reason} quotaRemaining=${d.quotaRemaining}'

# 5. Usage this month, and acme's next invoice so far: Pro's entry price plus its usage, rated.
api GET '/api/v1/usage?customerId=acme' | say '5. usage this month: ${d.data.map((u) => `${u.metricName} ${u.sum}`).join(", ")}'
api GET "/api/v1/subscriptions/$SUB/upcoming-invoice" | say '5. next invoice so far: ${d.entryPrice} + ${d.usageAmount} usage = ${d.total} ${d.currency}'

# 6. Price something: a rate plan, an offering at 19.00 a month, a storefront your website reads.
PLAN=$(api POST /api/v1/rate-plans '{"name": "Hobby usage", "currency": "USD", "billingPeriod": "MONTHLY",
  "metrics": [{"metricName": "api_calls", "pricingModel": "PER_UNIT", "rate": "0.002", "includedFree": 1000}]}' | get d.id)
HOBBY=$(api POST /api/v1/offerings "{\"productId\": \"$PRODUCT\", \"name\": \"Hobby\", \"currency\": \"USD\",
  \"billingPeriod\": \"MONTHLY\", \"entryPrice\": \"19.00\", \"ratePlanIds\": [\"$PLAN\"]}" | get d.id)
SF=$(api POST /api/v1/storefronts "{\"name\": \"My website\", \"offeringIds\": [\"$HOBBY\"]}" | get d.id)
api POST "/api/v1/storefronts/$SF/publish" | say '6. storefront published: version ${d.published.version}'
PK=$(api POST /api/v1/storefront-keys "{\"name\": \"website\", \"storefrontId\": \"$SF\"}" | get d.fullToken)
curl -s "$TOLLGATE_URL/api/v1/portal/headless/config" -H "X-Storefront-Key: $PK" >"$T/config.json"
say '6. your website reads: ${d.offerings.map((o) => `${o.name} ${o.entryPrice}/${o.billingPeriod}`)}' <"$T/config.json"
curl -s -o /dev/null -w '6. again with its etag: %{http_code}\n' "$TOLLGATE_URL/api/v1/portal/headless/config" \
  -H "X-Storefront-Key: $PK" -H "If-None-Match: $(get d.etag <"$T/config.json")"

# 7. Bill a month in seconds: a customer on a test clock subscribes to Hobby, makes 5,000 calls, and
#    the clock moves 32 days on, past the renewal and the hour a draft invoice waits for late usage.
CLOCK=$(api POST /api/v1/test_clocks "{\"frozenTime\": \"$NOW\", \"name\": \"quick start\"}" | get d.id)
INITECH=$(api POST /api/v1/customers "{\"externalId\": \"initech\", \"name\": \"Initech\", \"testClockId\": \"$CLOCK\"}" | get d.id)
HSUB=$(api POST /api/v1/subscriptions "{\"customerId\": \"$INITECH\", \"offeringId\": \"$HOBBY\"}" | get d.id)
api POST /v1/ingest "{\"customerId\": \"initech\", \"metricName\": \"api_calls\", \"quantity\": 5000, \"occurredAt\": \"$NOW\"}" >/dev/null
LATER=$(node -p "new Date(Date.parse('$NOW') + 32 * 86400e3).toISOString()")
api POST "/api/v1/test_clocks/$CLOCK/advance" "{\"frozenTime\": \"$LATER\"}" >/dev/null
api GET "/api/v1/invoices?subscriptionId=$HSUB" |
  get 'd.data.map((i) => `7. ${i.billingReason} invoice, ${i.status}: ${i.lines.map((l) => `${l.description} ${l.amount}`).join(", ")}; total ${i.total}`).join("\n")'

# 8. Hear about changes: an endpoint for subscription events, and a receiver that verifies their signatures.
node -e 'const fs = require("fs"), { Webhook } = require("standardwebhooks"), dir = process.argv[1];
  require("http").createServer((req, res) => { let body = ""; req.on("data", (c) => (body += c)).on("end", () => {
    try { fs.appendFileSync(`${dir}/got`, new Webhook(fs.readFileSync(`${dir}/whsec`, "utf8").trim()).verify(body, req.headers).type + "\n"); }
    catch { res.statusCode = 400; } res.end(); }); }).listen(0, function () { fs.writeFileSync(`${dir}/got`, ""); console.log(this.address().port); });' "$T" >"$T/port" &
RECEIVER_PID=$!
wait_until 30 test -s "$T/port"
api POST /api/v1/webhook-endpoints "{\"url\": \"http://127.0.0.1:$(cat "$T/port")/hooks\", \"eventTypes\": [\"subscription.*\"]}" >"$T/endpoint.json"
get d.secret <"$T/endpoint.json" >"$T/whsec"
say '8. endpoint for ${d.eventTypes}: ${d.status}' <"$T/endpoint.json"

# 9. Change initech's plan, choosing the offering by name. Its clock first moves to the next renewal, so
#    the proration is of a whole period: 199.00 on Agents less 19.00 unused on Hobby.
api POST "/api/v1/test_clocks/$CLOCK/advance" "{\"frozenTime\": \"$(api GET "/api/v1/subscriptions/$HSUB" | get d.currentPeriodEnd)\"}" >/dev/null
AGENTS=$(api GET "/api/v1/subscriptions/$HSUB/change-candidates" | get 'd.data.find((c) => c.name === "Agents").offeringId')
api POST "/api/v1/subscriptions/$HSUB/preview-change" "{\"offeringId\": \"$AGENTS\"}" >"$T/preview.json"
say '9. preview: ${d.action} ${d.fromOffering.name} -> ${d.toOffering.name}, ${d.debit} - ${d.credit} = ${d.invoiceTotal} today' <"$T/preview.json"
api POST "/api/v1/subscriptions/$HSUB/upgrade" "{\"offeringId\": \"$AGENTS\", \"expectedVersion\": $(get d.subscriptionVersion <"$T/preview.json")}" \
  -H 'Idempotency-Key: upgrade-1' >"$T/upgrade.json"
api GET "/api/v1/invoices/$(get d.invoiceId <"$T/upgrade.json")" | say '9. upgraded: its invoice ${d.status}, total ${d.total}'
wait_until 60 awk 'END { exit NR < 2 }' "$T/got" # the receiver got the renewal and the upgrade
sort "$T/got" | paste -sd ' ' - | sed 's/^/9. verified deliveries: /'

# 10. A product key for acme: verify it, rotate it (the old one works 300 s more), revoke the new one.
api POST /api/v1/api-keys "{\"kind\": \"PRODUCT\", \"name\": \"Acme production\", \"subscriptionId\": \"$SUB\"}" >"$T/key.json"
KEY_ID=$(get d.id <"$T/key.json")
KEY=$(get d.fullToken <"$T/key.json")
api POST /v1/keys/verify "{\"key\": \"$KEY\"}" | say '10. verify: valid=${d.valid} code=${d.code}'
curl -s -X POST "$TOLLGATE_URL/api/v1/api-keys/$KEY_ID/rotate" -H "Authorization: Bearer $KEY" >"$T/rotated.json"
api POST /v1/keys/verify "{\"key\": \"$KEY\"}" | say '10. the old key after rotation: ${d.code}, expiresAt set: ${d.expiresAt !== null}'
api DELETE "/api/v1/api-keys/$(get d.id <"$T/rotated.json")" | say '10. the new key: ${d.status}'
api POST /v1/keys/verify "{\"key\": \"$(get d.fullToken <"$T/rotated.json")\"}" | say '10. verify the new key: valid=${d.valid} code=${d.code}'

# 11. Search the audit log for the rotation: by its type and by who did it (the key itself).
api GET "/v1/events?type=api_key.rotated&actorId=$KEY_ID" | say '11. audit: ${d.data.map((e) => `${e.eventType} by ${e.actorType} via ${e.source}`)}'

# 12. A payment provider's signed webhook turned into usage (Stripe-style, no API key), for acme.
SOURCE=$(api POST /api/v1/webhook-sources '{"provider": "payment", "displayName": "Payments", "metricName": "payment_volume",
  "signingSecret": "whsec_quickstart"}' | get d.url)
TS=$(date +%s)
BODY="{\"id\": \"evt_1\", \"type\": \"payment_intent.succeeded\", \"created\": $TS, \"data\": {\"object\": {\"amount\": 2500, \"customer\": \"acme\"}}}"
SIG=$(node -e 'console.log(require("crypto").createHmac("sha256", "whsec_quickstart").update(process.argv[1]).digest("hex"))' "$TS.$BODY")
post() { curl -s -X POST "$TOLLGATE_URL$SOURCE" -H 'Content-Type: application/json' -H "Stripe-Signature: t=$TS,v1=$SIG" -d "$1"; }
post "$BODY" | say '12. webhook: ${d.status}, ${d.quantity} for ${d.tenant_id}'
post "$BODY" | say '12. the same again: ${d.status}'
post "${BODY/2500/9999}" | say '12. tampered: ${d.errors[0].code}'

# 13. Get paid, without a Stripe account: the Stripe fake that TOLLGATE_STRIPE_FAKE=true runs beside the
#     server stands in. A customer whose card is declined goes past due; a new card pays at once.
api PUT /api/v1/payment_providers/stripe '{"secretKey": "sk_test_tollgatefake0123456789",
  "webhookSecret": "whsec_tollgatefake0123456789ab"}' | say '13. Stripe connected: ${d.environment} environment'
PAYCLOCK=$(api POST /api/v1/test_clocks "{\"frozenTime\": \"$NOW\", \"name\": \"payments\"}" | get d.id)
GLOBEX=$(api POST /api/v1/customers "{\"externalId\": \"globex\", \"name\": \"Globex\", \"testClockId\": \"$PAYCLOCK\"}" | get d.id)
# card TEST_CARD: the buyer saves a card on the (fake) Stripe page that a payment method session opens.
card() { curl -s -o /dev/null -X POST -d "card=$1" "$(api POST "/api/v1/customers/$GLOBEX/payment_method_sessions" \
  '{"successUrl": "https://example.com/saved", "cancelUrl": "https://example.com/cancelled"}' | get d.url)"; }
on_file() { api GET "/api/v1/customers/$GLOBEX/payment_method" | get "d.last4 === '$1' || undefined" >/dev/null 2>&1; }
card pm_card_chargeDeclined && wait_until 30 on_file 0002 # saved when Stripe's webhook arrives
GSUB=$(api POST /api/v1/subscriptions "{\"customerId\": \"$GLOBEX\", \"offeringId\": \"$HOBBY\"}" | get d.id)
api POST "/api/v1/test_clocks/$PAYCLOCK/advance" "{\"frozenTime\": \"$(node -p "new Date(Date.parse('$NOW') + 2 * 3600e3).toISOString()")\"}" >/dev/null
INVOICE=$(api GET "/api/v1/invoices?subscriptionId=$GSUB" | get 'd.data[0].id')
api GET "/api/v1/invoices/$INVOICE" |
  say '13. finalized and charged: ${d.paymentStatus} (${d.lastPaymentError.code}), retried ${(Date.parse(d.nextPaymentAttempt) - Date.parse(d.finalizedAt)) / 864e5} days later'
api GET "/api/v1/subscriptions/$GSUB" | say '13. the subscription: ${d.status}'
paid() { api GET "/api/v1/invoices/$INVOICE" | get 'd.status === "paid" || undefined' >/dev/null 2>&1; }
card pm_card_visa && wait_until 30 paid # the new card is charged as soon as Stripe's webhook saves it
api GET "/api/v1/invoices/$INVOICE/payments" | say '13. attempts: ${d.data.map((p) => `${p.trigger} ${p.status}`).join(", ")}'
api GET "/api/v1/subscriptions/$GSUB" | say '13. the subscription: ${d.status}'

# 14. Prepaid credits: an offering whose usage draws from credits and is refused once they run out
#     (overage BLOCK), a buyer on a test clock with two grants, a top-up, and a month closed.
PREPAID=$(api POST /api/v1/offerings "{\"productId\": \"$PRODUCT\", \"name\": \"Prepaid\", \"currency\": \"USD\",
  \"billingPeriod\": \"MONTHLY\", \"billingMode\": \"PREPAID\", \"overage\": \"BLOCK\", \"ratePlanIds\": [\"$PLAN\"]}" | get d.id)
CREDCLOCK=$(api POST /api/v1/test_clocks "{\"frozenTime\": \"$NOW\", \"name\": \"credits\"}" | get d.id)
HOOLI=$(api POST /api/v1/customers "{\"externalId\": \"hooli\", \"name\": \"Hooli\", \"testClockId\": \"$CREDCLOCK\"}" | get d.id)
PSUB=$(api POST /api/v1/subscriptions "{\"customerId\": \"$HOOLI\", \"offeringId\": \"$PREPAID\"}" | get d.id)
in_days() { node -p "new Date(Date.parse('$NOW') + $1 * 86400e3).toISOString()"; }
api POST /api/v1/credit_grants "{\"customerId\": \"hooli\", \"amount\": \"2.00\", \"currency\": \"USD\", \"expiresAt\": \"$(in_days 40)\"}" >/dev/null
api POST /api/v1/credit_grants "{\"customerId\": \"hooli\", \"amount\": \"1.00\", \"currency\": \"USD\", \"priority\": 90,
  \"expiresAt\": \"$(in_days 10)\"}" | say '14. granted 2.00, and ${d.amount} more (priority ${d.priority}, drawn last) that expires in 10 days'
calls() { api POST /v1/ingest "{\"customerId\": \"hooli\", \"metricName\": \"api_calls\", \"quantity\": $1, \"occurredAt\": \"$NOW\"}" >/dev/null; }
check() { api GET "/v1/entitlements/check?accessorId=hooli&productId=$PRODUCT"; }
calls 1500 && check | say '14. 1,500 calls (1,000 free, 500 at 0.002): allowed=${d.allowed}, credits left ${d.creditsRemaining}'
calls 1100 && check | say '14. 1,100 more: allowed=${d.allowed} reason=${d.reason}'
api POST /api/v1/credit_grants '{"customerId": "hooli", "amount": "5.00", "currency": "USD", "source": "purchased"}' >"$T/topup.json"
api POST "/api/v1/invoices/$(get d.invoiceId <"$T/topup.json")/pay" >/dev/null # or charged by the payment provider
check | say '14. bought 5.00 and paid for it: allowed=${d.allowed}, credits left ${d.creditsRemaining}'
api POST "/api/v1/test_clocks/$CREDCLOCK/advance" "{\"frozenTime\": \"$LATER\"}" >/dev/null
api GET "/api/v1/invoices?subscriptionId=$PSUB" | say '14. the month: ${d.data[0].lines.map((l) => `${l.type} ${l.amount}`).join(", ")}; total ${d.data[0].total}'
api GET "/api/v1/customers/hooli/credit_ledger?currency=USD" |
  say '14. ledger: ${d.data.reverse().map((e) => `${e.type} ${e.amount}`).join(", ")}; balance ${d.data.at(-1).balanceAfter}'
