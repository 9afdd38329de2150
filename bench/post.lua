-- wrk script: POST a small JSON body to the cheap operation.
wrk.method = "POST"
wrk.body = '{"text":"Hello, World! A short payload for the benchmark."}'
wrk.headers["Content-Type"] = "application/json"
-- wrench limits anonymous callers (5 a minute by default): the benchmark calls as a key holder.
local key = os.getenv("WRENCH_BENCH_KEY")
if key then wrk.headers["X-API-Key"] = key end
