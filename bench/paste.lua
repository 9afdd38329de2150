-- wrk script: create a small paste.
wrk.method = "POST"
wrk.body = '{"content":"fn main() { println!(\\"hello\\"); }","language":"rust"}'
wrk.headers["Content-Type"] = "application/json"
