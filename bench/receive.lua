-- wrk script: POST a small webhook payload.
wrk.method = "POST"
wrk.body = '{"event":"charge.succeeded","id":"evt_123","amount":1200}'
wrk.headers["Content-Type"] = "application/json"
