//! Fake web sites over HTTP and HTTPS, with the answers the outbound operations are tested on.
//!
//! Routes (every site serves all of them):
//! - `/`: a page with every security header a grade looks for (HSTS on HTTPS only);
//! - `/bare`: a page with none of them;
//! - `/redirect?to=URL&status=302`: a redirect to anywhere, the tests' hostile redirector;
//! - `/chain?n=3`: `n` redirects before a page;
//! - `/loop-a`, `/loop-b`: redirects to each other;
//! - `/slow?ms=1500`: a page after a pause;
//! - `/big?bytes=N`: a body of `N` bytes;
//! - `/echo`: the request's method, path and headers as JSON;
//! - `/status?code=404`: an empty answer with that status;
//! - `/heavy?n=60&bytes=1000` (or `&ms=3000`): a page of `n` images of that size (or that slow);
//! - `/compressed`: a page sent gzip-compressed to clients that accept gzip;
//! - `/providers/...`: fake third-party data providers (`providers.rs`);
//! - `/rdap/...`: the fake registry's RDAP service and bootstrap file (`whois.rs`);
//! - `/meta`: a page with every head metadata variant (Open Graph, Twitter Card, icons,
//!   manifest, canonical, oEmbed, theme colour, `<base href>`, relative URLs);
//! - `/` of `tech.site.example`: a home page whose headers and markup name its stack;
//! - `/a11y`: a page failing each accessibility rule, beside elements that pass;
//! - `/latin1`: a page in ISO-8859-1, declared only in the Content-Type header;
//! - `/` of `company.site.example`: a company's home page, with social, e-mail and phone links
//!   (and share links and a script that must not count);
//! - the icons `/meta` declares, its manifest (`/site.webmanifest`), and `/favicon.ico`;
//! - `/hostile-links?to=HOST:PORT`: a page whose icons, manifest, canonical link, Open Graph
//!   image and oEmbed link all point at `HOST:PORT`.
//!
//! Over HTTPS the server offers HTTP/2 and HTTP/1.1 (ALPN). Over plain HTTP, every request for
//! `secure.site.example` is redirected to the same path on
//! its HTTPS twin (port 8443), as a site enforcing HTTPS does.

use std::{convert::Infallible, net::SocketAddr, sync::Arc, time::Duration};

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response, body::Incoming, header::HeaderValue, service::service_fn};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

fn query(req: &Request<Incoming>) -> Vec<(String, String)> {
    form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes()).into_owned().collect()
}

fn param(req: &Request<Incoming>, name: &str) -> Option<String> {
    query(req).into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

fn page(status: u16, headers: &[(&str, &str)], body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut resp = Response::new(Full::new(body.into()));
    *resp.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::OK);
    let h = resp.headers_mut();
    h.insert("server", HeaderValue::from_static("wrench-fakes"));
    for (k, v) in headers {
        if let (Ok(k), Ok(v)) = (hyper::header::HeaderName::from_bytes(k.as_bytes()), HeaderValue::from_str(v)) {
            h.append(k, v);
        }
    }
    resp
}

/// Every head metadata variant the page readers handle, with relative URLs and a base.
pub const META_PAGE: &str = r##"<!doctype html>
<html lang="en-GB"><head>
<meta charset="utf-8">
<title>  Fixture   article  </title>
<base href="/articles/">
<meta name="description" content="A fixture article about fixtures.">
<meta name="theme-color" content="#1a73e8">
<meta property="og:title" content="The fixture article">
<meta property="og:description" content="Everything a share card needs.">
<meta property="og:type" content="article">
<meta property="og:url" content="/articles/fixture">
<meta property="og:site_name" content="Site Example">
<meta property="og:image" content="images/card.png">
<meta property="og:image:alt" content="A card image">
<meta property="og:image:width" content="1200">
<meta property="og:image" content="https://cdn.site.example/second.jpg">
<meta property="og:locale" content="en_GB">
<meta property="article:published_time" content="2026-11-02T08:00:00Z">
<meta property="article:tag" content="fixtures">
<meta property="article:tag" content="testing">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:site" content="@siteexample">
<meta name="twitter:image" content="//cdn.site.example/twitter.png">
<link rel="canonical" href="https://www.site.example/articles/fixture">
<link rel="icon" type="image/png" sizes="32x32" href="/icons/32.png">
<link rel="icon" type="image/svg+xml" href="icon.svg">
<link rel="apple-touch-icon" sizes="180x180" href="/apple-touch-icon.png">
<link rel="manifest" href="/site.webmanifest">
<link rel="alternate" type="application/json+oembed" href="/oembed?url=%2Farticles%2Ffixture">
</head><body><h1>Fixture</h1></body></html>"##;

/// A PNG of `width` x `height` pixels: signature, header chunk with its CRC, one compressed
/// scanline per row of transparent pixels, and the end chunk. Real enough for any decoder.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(&crc.sum().to_be_bytes());
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    let raw = vec![0u8; (1 + 4 * width as usize) * height as usize];
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = std::io::Write::write_all(&mut z, &raw);
    chunk(&mut out, b"IDAT", &z.finish().unwrap_or_default());
    chunk(&mut out, b"IEND", &[]);
    out
}

/// An ICO file holding one PNG image of `size` x `size` pixels.
pub fn ico(size: u8) -> Vec<u8> {
    let image = png(u32::from(size), u32::from(size));
    let mut out = vec![0, 0, 1, 0, 1, 0, size, size, 0, 0, 1, 0, 32, 0];
    out.extend_from_slice(&(image.len() as u32).to_le_bytes());
    out.extend_from_slice(&22u32.to_le_bytes());
    out.extend_from_slice(&image);
    out
}

const SVG_ICON: &str =
    r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7"/></svg>"#;

const MANIFEST: &str = r#"{"name":"Site Example","icons":[
  {"src":"/icons/192.png","sizes":"192x192","type":"image/png"},
  {"src":"icons/512.png","sizes":"512x512","type":"image/png","purpose":"maskable"},
  {"src":"/icons/fake.png","sizes":"64x64","type":"image/png"}]}"#;

/// A company's home page, for `company`.
const COMPANY_PAGE: &str = r##"<!doctype html>
<html lang="en"><head>
<title>Example Widgets | Home</title>
<meta name="application-name" content="Widgets">
<meta name="description" content="Widgets for every purpose.">
<meta property="og:site_name" content="Example Widgets Ltd">
<meta property="og:description" content="We make widgets.">
<meta property="og:image" content="/img/og.png">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
 {"@type": "WebSite", "name": "Example Widgets", "url": "/"},
 {"@type": "Corporation", "name": "Example Widgets", "legalName": "Example Widgets Ltd",
  "logo": {"@type": "ImageObject", "url": "/img/logo.png"}, "foundingDate": "2004-05-06",
  "sameAs": ["https://www.instagram.com/examplewidgets", "https://twitter.com/examplewidgets"],
  "telephone": "+44 20 7946 0001",
  "address": {"@type": "PostalAddress", "streetAddress": "1 Widget Way", "addressLocality": "London",
              "postalCode": "EC1A 1BB", "addressCountry": "GB"}}]}</script>
</head><body><div><div><header><nav>
<a href="https://twitter.com/examplewidgets">X</a>
<a href="https://twitter.com/intent/tweet?text=widgets">Share</a>
<a href="https://www.linkedin.com/company/example-widgets/?trk=home">LinkedIn</a>
<a href="https://www.facebook.com/sharer/sharer.php?u=x">Share</a>
<a href="https://github.com/example-widgets">GitHub</a>
<a href="https://www.youtube.com/@examplewidgets">YouTube</a>
</nav></header>
<script>document.write('<a href="mailto:not-this@site.example">');</script>
<footer><a href="mailto:hello@site.example?subject=Hi">Mail</a> <a href="mailto:team+web@site.example">Team</a> <a href="MAILTO:sales%40site.example">Sales</a>
<a href="tel:+44 20 7946 0000">Call</a> <a href="tel:+44 20 7946 0000">Call again</a> <a href="/about">About</a></footer>
</div></div></body></html>"##;

/// A page that fails each accessibility rule once or more, beside elements that pass.
pub const A11Y_PAGE: &str = r##"<!doctype html>
<html><head><meta charset="utf-8"></head><body>
<h1>Fixture</h1>
<h3 id="skipped">Skipped a level</h3>
<img src="/a.png">
<img src="/b.png" alt="">
<img src="/c.png" alt="A chart">
<img src="/d.png" role="presentation">
<div aria-hidden="true"><img src="/hidden.png"></div>
<form>
  <input type="text" name="q">
  <label for="email">E-mail</label><input id="email" type="email">
  <label>Name <input type="text" name="name"></label>
  <input type="hidden" name="t">
  <input type="submit">
  <input type="button">
  <select name="s"><option>1</option></select>
  <textarea aria-label="Comments"></textarea>
</form>
<a href="/one"></a>
<a href="/two">Two</a>
<a href="/three"><img src="/i.png" alt="Three"></a>
<button></button>
<button>Send</button>
<p id="dup">First</p><p id="dup">Second</p>
<div tabindex="3">Focus me first</div>
<div tabindex="0">Fine</div>
<table><caption>Figures</caption><tr><td>1</td><td>2</td><td>3</td></tr><tr><td>4</td><td>5</td><td>6</td></tr><tr><td>7</td><td>8</td><td>9</td></tr></table>
<table><tr><th>A</th><th>B</th><th>C</th></tr><tr><td>1</td><td>2</td><td>3</td></tr><tr><td>4</td><td>5</td><td>6</td></tr></table>
<table><tr><td>a</td><td>layout</td><td>table</td></tr><tr><td>of</td><td>three</td><td>rows</td></tr><tr><td>is</td><td>not</td><td>judged</td></tr></table>
<div role="buton">Typo role</div>
<div role="button" aria-pressed="false" aria-labeledby="x">Misspelt attribute</div>
<p style="color: #777777; background-color: #ffffff">Grey on white</p>
<p style="color: #767676; background: white">Just dark enough</p>
<p style="color:#888; background-color:#fff; font-size: 24px">Large grey, 3.54:1</p>
<p style="color: rgba(0,0,0,0.5); background-color: #fff">Translucent, not judged</p>
</body></html>"##;

/// The home page of `tech.site.example`: WordPress markers and an analytics tag.
const TECH_PAGE: &str = r##"<!doctype html><html lang="en"><head><title>Tech fixture</title>
<meta name="generator" content="WordPress 6.6.2">
<link rel="stylesheet" href="/wp-content/themes/fixture/style.css">
<script src="/wp-includes/js/jquery/jquery.min.js"></script>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-FIXTURE"></script>
</head><body><p>Tech fixture.</p></body></html>"##;

const HTML: &str =
    "<!doctype html><html lang=\"en\"><head><title>Fixture</title></head><body><p>A fixture page.</p></body></html>";

async fn route(req: Request<Incoming>, https: bool) -> Response<Full<Bytes>> {
    let html = [("content-type", "text/html; charset=utf-8")];
    let host = req.headers().get("host").and_then(|h| h.to_str().ok()).unwrap_or("");
    if !https && host.split(':').next() == Some("secure.site.example") {
        let path = req.uri().path_and_query().map(|p| p.as_str()).unwrap_or("/");
        return page(301, &[("location", &format!("https://secure.site.example:8443{path}"))], "");
    }
    let authority = req.uri().authority().map(|a| a.host().to_string());
    let named = authority.as_deref().unwrap_or(host.split(':').next().unwrap_or(""));
    if named == "company.site.example" && req.uri().path() == "/" {
        return page(200, &html, COMPANY_PAGE);
    }
    if named == "tech.site.example" && req.uri().path() == "/" {
        // A site that gives away its stack, as many do.
        let headers = [
            ("content-type", "text/html; charset=utf-8"),
            ("server", "nginx/1.25.3"),
            ("x-powered-by", "PHP/8.3.1"),
            ("cf-ray", "8a1b2c3d4e5f6071-LHR"),
            ("set-cookie", "PHPSESSID=fixture; path=/; HttpOnly"),
        ];
        return page(200, &headers, TECH_PAGE);
    }
    if let Some(path) = req.uri().path().strip_prefix("/providers").map(str::to_string) {
        // A form POST's fields join the query's, as the provider APIs that take forms read them.
        let raw_query = req.uri().query().unwrap_or("").to_string();
        let headers = req.headers().clone();
        let mut pairs = query(&req);
        if req.method() == hyper::Method::POST {
            let body = http_body_util::BodyExt::collect(http_body_util::Limited::new(req.into_body(), 64 * 1024))
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            pairs.extend(form_urlencoded::parse(&body).into_owned());
        }
        if let Some((status, kind, body)) = crate::providers::route(&path, &pairs, &raw_query, &headers) {
            return page(status, &[("content-type", kind)], body);
        }
        return page(404, &[("content-type", "text/plain")], "no such provider route");
    }
    if let Some((status, body)) = req.uri().path().strip_prefix("/rdap").and_then(crate::whois::rdap_route) {
        return page(status, &[("content-type", "application/rdap+json")], body);
    }
    match req.uri().path() {
        "/" => {
            let mut headers = vec![
                ("content-type", "text/html; charset=utf-8"),
                ("content-security-policy", "default-src 'self'; frame-ancestors 'none'"),
                ("x-content-type-options", "nosniff"),
                ("x-frame-options", "DENY"),
                ("referrer-policy", "strict-origin-when-cross-origin"),
                ("permissions-policy", "geolocation=(), camera=(), microphone=()"),
            ];
            if https {
                headers.push(("strict-transport-security", "max-age=63072000; includeSubDomains; preload"));
            }
            page(200, &headers, HTML)
        }
        "/bare" => page(200, &html, HTML),
        "/redirect" => {
            let to = param(&req, "to").unwrap_or_else(|| "/".into());
            let status = param(&req, "status").and_then(|s| s.parse().ok()).unwrap_or(302);
            page(status, &[("location", &to)], "")
        }
        "/chain" => {
            let n: u32 = param(&req, "n").and_then(|s| s.parse().ok()).unwrap_or(0);
            if n == 0 { page(200, &html, HTML) } else { page(302, &[("location", &format!("/chain?n={}", n - 1))], "") }
        }
        "/loop-a" => page(302, &[("location", "/loop-b")], ""),
        "/loop-b" => page(301, &[("location", "/loop-a")], ""),
        "/slow" => {
            let ms: u64 = param(&req, "ms").and_then(|s| s.parse().ok()).unwrap_or(1000);
            tokio::time::sleep(Duration::from_millis(ms.min(60_000))).await;
            page(200, &html, HTML)
        }
        "/big" => {
            let n: usize = param(&req, "bytes").and_then(|s| s.parse().ok()).unwrap_or(1024);
            page(200, &[("content-type", "application/octet-stream")], vec![b'x'; n.min(64 << 20)])
        }
        "/echo" => {
            let headers: Vec<String> = req
                .headers()
                .iter()
                .map(|(k, v)| format!("\"{}\":\"{}\"", k, String::from_utf8_lossy(v.as_bytes()).replace('"', "'")))
                .collect();
            let body = format!(
                "{{\"method\":\"{}\",\"path\":\"{}\",\"headers\":{{{}}}}}",
                req.method(),
                req.uri().path(),
                headers.join(",")
            );
            page(200, &[("content-type", "application/json")], body)
        }
        "/compressed" => {
            let accepts = req
                .headers()
                .get("accept-encoding")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.split(',').any(|e| e.trim().starts_with("gzip")));
            let text = HTML.repeat(40);
            if accepts {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                let _ = std::io::Write::write_all(&mut gz, text.as_bytes());
                let body = gz.finish().unwrap_or_default();
                page(200, &[html[0], ("content-encoding", "gzip"), ("vary", "accept-encoding")], body)
            } else {
                page(200, &html, text)
            }
        }
        "/meta" => page(200, &html, META_PAGE),
        "/a11y" => page(200, &html, A11Y_PAGE),
        // The icons the metadata page declares (one of them mislabelled), its manifest with
        // one missing icon and one that is not an image, and the default icon.
        "/icons/32.png" => page(200, &[("content-type", "image/x-icon")], png(32, 32)),
        "/articles/icon.svg" => page(200, &[("content-type", "image/svg+xml")], SVG_ICON),
        "/apple-touch-icon.png" => page(200, &[("content-type", "image/png")], png(180, 180)),
        "/site.webmanifest" => page(200, &[("content-type", "application/manifest+json")], MANIFEST),
        "/icons/192.png" => page(200, &[("content-type", "image/png")], png(192, 192)),
        "/icons/fake.png" => page(200, &[("content-type", "image/png")], "<html>not an image</html>"),
        // A JWK Set of the JOSE fixtures' public keys (tests/fixtures/jose.py).
        "/.well-known/jwks.json" => {
            page(200, &[("content-type", "application/json")], include_str!("../../fixtures/jose_jwks.json"))
        }
        "/favicon.ico" => page(200, &[("content-type", "image/vnd.microsoft.icon")], ico(16)),
        "/latin1" => {
            let body = b"<!doctype html><html lang=fr><head><title>Caf\xe9 cr\xe8me</title>\
                <meta name=description content=\"D\xe9j\xe0 vu \xe0 la fran\xe7aise\"></head><body></body></html>";
            page(200, &[("content-type", "text/html; charset=ISO-8859-1")], body.to_vec())
        }
        "/hostile-links" => {
            let to = param(&req, "to").unwrap_or_else(|| "127.0.0.1:80".into());
            let body = format!(
                "<html><head><title>Links</title><link rel=icon href=\"http://{to}/favicon.ico\">\
                 <link rel=apple-touch-icon href=\"http://{to}/touch.png\"><link rel=manifest href=\"http://{to}/m.json\">\
                 <link rel=canonical href=\"http://{to}/\"><meta property=og:image content=\"http://{to}/og.png\">\
                 <link rel=alternate type=application/json+oembed href=\"http://{to}/oembed\"></head></html>"
            );
            page(200, &html, body)
        }
        "/heavy" => {
            // `n` images of `bytes` bytes each, or each `ms` slow when `ms` is given.
            let n: usize = param(&req, "n").and_then(|s| s.parse().ok()).unwrap_or(10).min(200_000);
            let bytes: usize = param(&req, "bytes").and_then(|s| s.parse().ok()).unwrap_or(1000);
            let images: String = (0..n)
                .map(|i| match param(&req, "ms") {
                    Some(ms) => format!("<img src=\"/slow?ms={ms}&i={i}\">"),
                    None => format!("<img src=\"/big?bytes={bytes}&i={i}\">"),
                })
                .collect();
            page(200, &html, format!("<html><head><title>Heavy</title></head><body>{images}</body></html>"))
        }
        "/status" => {
            let code = param(&req, "code").and_then(|s| s.parse().ok()).unwrap_or(200);
            page(code, &[], "")
        }
        _ => page(404, &html, "not found"),
    }
}

/// Serves the routes over plain HTTP on `address`.
pub async fn serve_http(address: SocketAddr) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(address).await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            // Without it, a body written after its headers waits out the client's delayed ACK.
            let _ = stream.set_nodelay(true);
            tokio::spawn(serve_connection(TokioIo::new(stream), false, false));
        }
    });
    Ok(address)
}

/// Serves the routes over HTTPS on `address`, with `tls` (certificate chain and key).
pub async fn serve_https(address: SocketAddr, tls: Arc<rustls::ServerConfig>) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(address).await?;
    let address = listener.local_addr()?;
    let acceptor = tokio_rustls::TlsAcceptor::from(tls);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let _ = stream.set_nodelay(true);
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                if let Ok(Ok(tls)) = tokio::time::timeout(Duration::from_secs(10), acceptor.accept(stream)).await {
                    let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
                    serve_connection(TokioIo::new(tls), true, h2).await;
                }
            });
        }
    });
    Ok(address)
}

/// Serves one connection, in HTTP/2 when the TLS handshake agreed on it, HTTP/1.1 otherwise.
async fn serve_connection<I>(io: TokioIo<I>, https: bool, h2: bool)
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |req| async move { Ok::<_, Infallible>(route(req, https).await) });
    if h2 {
        let builder = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new());
        let _ = builder.serve_connection(io, service).await;
    } else {
        let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
    }
}
