-- wrk script: POST a small JSON body to the cheap operation.
wrk.method = "POST"
wrk.body = '{"text":"Hello, World! A short payload for the benchmark."}'
wrk.headers["Content-Type"] = "application/json"
