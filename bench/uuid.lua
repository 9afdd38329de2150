-- wrk script: POST /v1/uuid/v4 with an empty JSON object, as a key holder when
-- WRENCH_BENCH_KEY is set (the bare servers ignore the header).
wrk.method = "POST"
wrk.body = "{}"
wrk.headers["Content-Type"] = "application/json"
local key = os.getenv("WRENCH_BENCH_KEY")
if key then wrk.headers["X-API-Key"] = key end
