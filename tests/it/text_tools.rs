//! `text/lines` and `text/compare-lists` against GNU coreutils in the C locale, and `xml/format`
//! against `xmllint`, `bytes/strings` against GNU `strings`, `quoted-printable/*` against
//! Python's `binascii` (what `quopri` runs): the same
//! generated lines through `text/lines` and through `sort` (plain, `-r`, `-f`, `-V`, `-n`),
//! `tac`, `head`, `tail`, `uniq`, `nl`, `fold`, `grep` and `comm`, byte for byte.

use serde_json::{Value, json};

use crate::common;
use crate::common::tools::{Scratch, client, have, lcg, output};

/// Lines meant to reach the corners of each order: versions with suffixes and tildes, hidden
/// names, numbers with signs, fractions, leading blanks and zeros, letters of both cases,
/// punctuation, text that is not ASCII, empty lines, and repeats.
fn corpus(ascii_only: bool) -> Vec<String> {
    let mut next = lcg(46);
    let pieces = [
        "a", "B", "b", "file", "File", "v", "1", "2", "10", "007", ".", "-", "~", "_", " ", "\t", ".tar", ".gz",
        ".txt", "rc", "x86", "0.5", "-3", "+4", "1e3", "é", "Ω", "中", "~1", "..", "z", "Z9", ".5", "-.25",
    ];
    let mut lines: Vec<String> = Vec::new();
    for _ in 0..400 {
        let parts = 1 + next(5);
        let mut line: String = (0..parts).map(|_| pieces[next(pieces.len() as u64) as usize]).collect();
        if ascii_only {
            line.retain(|c| c.is_ascii());
        }
        if next(10) == 0 {
            line.clear();
        }
        if next(6) == 0 && !lines.is_empty() {
            line = lines[next(lines.len() as u64) as usize].clone();
        }
        lines.push(line);
    }
    lines
}

async fn lines_op(cli: &poem::test::TestClient<wrench_server::http::App>, text: &str, steps: Value) -> String {
    let (status, v) = common::post_json(cli, "/v1/text/lines", &json!({"text": text, "steps": steps})).await;
    assert_eq!(status, 200, "{steps}: {}", v["error"]);
    v["data"]["text"].as_str().unwrap().to_string()
}

fn c_locale(args: &[&str], input: &str) -> String {
    let mut full = vec!["env", "LC_ALL=C"];
    full.extend_from_slice(args);
    let (ok, out) = output(&full, Some(input.as_bytes()));
    assert!(ok, "{args:?} failed");
    String::from_utf8(out).unwrap()
}

#[tokio::test]
async fn text_lines_answers_what_coreutils_do() {
    if !["sort", "tac", "head", "tail", "uniq", "nl", "fold", "grep", "awk", "sed"].iter().all(|t| have(t)) {
        return;
    }
    let cli = client();
    let text = corpus(false).join("\n") + "\n";
    let ascii = corpus(true).join("\n") + "\n";
    let cases: Vec<(Value, Vec<&str>, &str)> = vec![
        (json!([{"step": "sort"}]), vec!["sort"], &text),
        (json!([{"step": "sort", "descending": true}]), vec!["sort", "-r"], &text),
        (json!([{"step": "sort", "ignoreCase": true}]), vec!["sort", "-f"], &text),
        (json!([{"step": "sort", "order": "natural"}]), vec!["sort", "-V"], &text),
        (json!([{"step": "sort", "order": "natural", "descending": true}]), vec!["sort", "-rV"], &text),
        (json!([{"step": "sort", "order": "numeric"}]), vec!["sort", "-n"], &text),
        (json!([{"step": "sort", "order": "numeric", "descending": true}]), vec!["sort", "-rn"], &text),
        (json!([{"step": "reverse"}]), vec!["tac"], &text),
        (json!([{"step": "head", "n": 17}]), vec!["head", "-n", "17"], &text),
        (json!([{"step": "tail", "n": 23}]), vec!["tail", "-n", "23"], &text),
        (json!([{"step": "unique", "adjacent": true}]), vec!["uniq"], &text),
        (
            json!([{"step": "sort"}, {"step": "unique", "adjacent": true, "ignoreCase": true}]),
            vec!["sh", "-c", "sort | uniq -i"],
            &ascii,
        ),
        (json!([{"step": "unique"}]), vec!["awk", "!seen[$0]++"], &text),
        (json!([{"step": "number"}]), vec!["nl", "-ba"], &text),
        (
            json!([{"step": "number", "start": -5, "width": 3, "separator": ": "}]),
            vec!["nl", "-ba", "-v", "-5", "-w", "3", "-s", ": "],
            &text,
        ),
        (json!([{"step": "wrap", "width": 5}]), vec!["fold", "-w", "5"], &ascii),
        (json!([{"step": "wrap", "width": 7, "atSpaces": true}]), vec!["fold", "-s", "-w", "7"], &ascii),
        (json!([{"step": "filter", "pattern": "^[a-z]+[0-9]"}]), vec!["grep", "-E", "^[a-z]+[0-9]"], &text),
        (
            json!([{"step": "filter", "pattern": "file|\\.tar", "invert": true}]),
            vec!["grep", "-vE", "file|\\.tar"],
            &text,
        ),
        (json!([{"step": "filter", "pattern": "^b", "ignoreCase": true}]), vec!["grep", "-iE", "^b"], &ascii),
        (json!([{"step": "trim"}]), vec!["sed", "s/^[[:space:]]*//; s/[[:space:]]*$//"], &ascii),
        (json!([{"step": "removeEmpty"}]), vec!["grep", "-v", "^[[:space:]]*$"], &ascii),
        (
            json!([{"step": "prefix", "text": "> "}, {"step": "suffix", "text": ";"}]),
            vec!["sed", "s/^/> /; s/$/;/"],
            &text,
        ),
        (
            json!([{"step": "sort", "order": "numeric"}, {"step": "unique", "adjacent": true}, {"step": "tail", "n": 40}, {"step": "reverse"}]),
            vec!["sh", "-c", "sort -n | uniq | tail -n 40 | tac"],
            &text,
        ),
    ];
    for (steps, command, input) in &cases {
        let ours = lines_op(&cli, input, steps.clone()).await;
        let theirs = c_locale(command, input);
        assert_eq!(ours, theirs, "{steps} against {command:?}");
    }
    eprintln!("text/lines: {} pipelines answered as GNU coreutils in the C locale", cases.len());
}

#[tokio::test]
async fn compare_lists_answers_what_comm_does() {
    if !have("comm") || !have("sort") {
        return;
    }
    let cli = client();
    let all = corpus(false);
    let (a, b): (Vec<String>, Vec<String>) = (
        all[..200].iter().map(|l| l.trim().to_string()).collect(),
        all[150..].iter().map(|l| l.trim().to_string()).collect(),
    );
    let dir = Scratch::new("comm");
    // comm reads sorted lists; compare-lists drops empty items, so the files leave them out.
    let sorted = |list: &[String]| {
        let kept: Vec<&str> = list.iter().map(String::as_str).filter(|l| !l.is_empty()).collect();
        c_locale(&["sort", "-u"], &(kept.join("\n") + "\n"))
    };
    let (fa, fb) = (dir.file("a", sorted(&a).as_bytes()), dir.file("b", sorted(&b).as_bytes()));
    for (mode, flag) in [("intersection", "-12"), ("a-only", "-23"), ("b-only", "-13")] {
        let (status, v) =
            common::post_json(&cli, "/v1/text/compare-lists", &json!({"a": a, "b": b, "mode": mode})).await;
        assert_eq!(status, 200, "{}", v["error"]);
        let mut items: Vec<String> = serde_json::from_value(v["data"]["items"].clone()).unwrap();
        items.sort();
        let theirs = c_locale(&["comm", flag, &fa, &fb], "");
        let theirs: Vec<&str> = theirs.lines().collect();
        assert_eq!(items, theirs, "{mode} against comm {flag}");
        assert!(!items.is_empty(), "{mode}: nothing compared");
    }
}

/// A generated XML document: nested elements with attributes (namespace declarations among
/// them, values needing escapes), text with entities and character references, CDATA,
/// comments, processing instructions, `xml:space`, and whitespace between elements as people
/// indent it.
fn xml_document(next: &mut impl FnMut(u64) -> u64) -> String {
    fn element(next: &mut impl FnMut(u64) -> u64, depth: u32, out: &mut String) {
        let names = ["a", "b", "item", "x:y", "n.m"];
        let name = names[next(names.len() as u64) as usize];
        out.push('<');
        out.push_str(name);
        let attrs = [
            " id=\"1\"",
            " xmlns:x=\"urn:x\"",
            " k='v\"w'",
            " t=\"a&amp;b&lt;c\"",
            " s=\"l1\tl2\"",
            " xml:space=\"preserve\"",
            " xmlns=\"urn:d\"",
        ];
        for _ in 0..next(3) {
            let a = attrs[next(attrs.len() as u64) as usize];
            if !out.ends_with(a) && !out[out.rfind('<').unwrap()..].contains(a) {
                out.push_str(a);
            }
        }
        if depth > 3 || next(5) == 0 {
            out.push_str("/>");
            return;
        }
        out.push('>');
        let pieces = [
            "\n  ",
            "\n",
            "  ",
            "text",
            " t &amp; u ",
            "&#169;",
            "é",
            "<![CDATA[x<y]]>",
            "<!-- c -->",
            "<?pi  data ?>",
            "&lt;&gt;",
        ];
        for _ in 0..next(5) {
            if next(2) == 0 {
                element(next, depth + 1, out);
            } else {
                out.push_str(pieces[next(pieces.len() as u64) as usize]);
            }
        }
        out.push_str("</");
        out.push_str(name);
        out.push('>');
    }
    let decls = [
        "",
        "<?xml version=\"1.0\"?>\n",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>",
    ];
    let mut out = decls[next(decls.len() as u64) as usize].to_string();
    if next(3) == 0 {
        out.push_str("<!-- top -->\n");
    }
    element(next, 0, &mut out);
    out.push('\n');
    out
}

#[tokio::test]
async fn xml_format_answers_what_xmllint_does() {
    if !have("xmllint") {
        return;
    }
    let cli = client();
    let mut next = lcg(46);
    let mut compared = 0;
    for _ in 0..300 {
        let xml = xml_document(&mut next);
        let (ok, _) = output(&["xmllint", "--noout", "-"], Some(xml.as_bytes()));
        if !ok {
            continue; // a generated clash libxml2 refuses (an attribute given twice, say)
        }
        for (minify, flag) in [(false, "--format"), (true, "--noblanks")] {
            let (status, v) = common::post_json(&cli, "/v1/xml/format", &json!({"xml": xml, "minify": minify})).await;
            assert_eq!(status, 200, "{xml}: {}", v["error"]);
            let (_, theirs) = output(&["xmllint", flag, "-"], Some(xml.as_bytes()));
            assert_eq!(
                v["data"]["formatted"].as_str().unwrap(),
                String::from_utf8(theirs).unwrap(),
                "xmllint {flag} of {xml:?}"
            );
        }
        compared += 1;
    }
    assert!(compared > 200, "only {compared} documents compared");
    eprintln!("xml/format: {compared} documents formatted and minified as xmllint does");
}

#[tokio::test]
async fn bytes_strings_answers_what_gnu_strings_does() {
    if !have("strings") {
        return;
    }
    let cli = client();
    let mut next = lcg(47);
    let dir = Scratch::new("strings");
    let mut compared = 0;
    for case in 0..40 {
        // Random bytes with ASCII and UTF-16LE words (tabs among them) spliced in.
        let mut data = Vec::new();
        for _ in 0..next(60) {
            match next(3) {
                0 => data.extend((0..next(12)).map(|_| next(256) as u8)),
                1 => data.extend(b"ab\tcdefg hijk"[..1 + next(12) as usize].iter()),
                _ => data.extend("Wrench\tUTF16".encode_utf16().take(1 + next(11) as usize).flat_map(u16::to_le_bytes)),
            }
        }
        let min = 1 + next(6) as usize;
        let file = dir.file(&format!("d{case}"), &data);
        for (encoding, flag) in [("ascii", "s"), ("utf16le", "l")] {
            let (ok, out) = output(&["strings", "-a", "-e", flag, "-n", &min.to_string(), "-t", "d", &file], None);
            assert!(ok);
            let theirs: Vec<(usize, String)> = String::from_utf8(out)
                .unwrap()
                .lines()
                .map(|l| {
                    let (offset, text) = l.trim_start().split_once(' ').unwrap();
                    (offset.parse().unwrap(), text.to_string())
                })
                .collect();
            let body = json!({"input": data.iter().map(|b| format!("{b:02x}")).collect::<String>(), "inputEncoding": "hex", "minLength": min, "encoding": encoding});
            let (status, v) = common::post_json(&cli, "/v1/bytes/strings", &body).await;
            assert_eq!(status, 200, "{}", v["error"]);
            let ours: Vec<(usize, String)> = v["data"]["strings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| (s["offset"].as_u64().unwrap() as usize, s["text"].as_str().unwrap().to_string()))
                .collect();
            assert_eq!(ours, theirs, "strings -e {flag} -n {min} of case {case}");
            compared += 1;
        }
    }
    eprintln!("bytes/strings: {compared} runs answered as GNU strings finds them");
}

/// Python's `binascii.b2a_qp` and `a2b_qp` (what `quopri` runs), on random bytes in every
/// mode: wrench's encoding is Python's byte for byte (but for a carriage return that ends no
/// line, which wrench encodes and Python leaves bare), Python decodes wrench's encoding to the
/// bytes, and wrench decodes Python's.
#[tokio::test]
async fn quoted_printable_answers_what_python_does() {
    if !have("python3") {
        return;
    }
    let cli = client();
    let mut next = lcg(48);
    let pieces: [&[u8]; 13] =
        [b"a", b"Z9", b" ", b"\t", b"\n", b"\r\n", b"=", b".", b"_", b"\x00", b"\xc3\xa9", b"\xff", b"~!"];
    let mut cases = Vec::new();
    for case in 0..300 {
        let mut data: Vec<u8> = Vec::new();
        for _ in 0..next(90) {
            match next(8) {
                0 => data.extend(std::iter::repeat_n(b'x', next(90) as usize)),
                _ => data.extend_from_slice(pieces[next(pieces.len() as u64) as usize]),
            }
        }
        // A third of the cases get a carriage return of their own somewhere.
        if case % 3 == 0 {
            data.insert(next(data.len() as u64 + 1) as usize, b'\r');
        }
        let (binary, quote_tabs, header) = (case % 5 == 1, case % 7 == 2, case % 6 == 3);
        let body = json!({"text": hex::encode(&data), "inputEncoding": "hex", "binary": binary, "quoteTabs": quote_tabs, "header": header});
        let (status, v) = common::post_json(&cli, "/v1/quoted-printable/encode", &body).await;
        assert_eq!(status, 200, "{}", v["error"]);
        let ours = v["data"]["encoded"].as_str().unwrap().to_string();
        assert!(ours.is_ascii() && ours.split('\n').all(|l| l.trim_end_matches('\r').len() <= 78), "{ours:?}");
        cases.push(json!({"hex": hex::encode(&data), "binary": binary, "quotetabs": quote_tabs, "header": header, "ours": ours}));
    }
    let script = r#"
import binascii, json, sys
out = []
for c in json.load(sys.stdin):
    data = bytes.fromhex(c["hex"])
    theirs = binascii.b2a_qp(data, quotetabs=c["quotetabs"], istext=not c["binary"], header=c["header"])
    back = binascii.a2b_qp(c["ours"].encode(), header=c["header"])
    out.append({"theirs": theirs.decode("ascii"), "back": back.hex()})
print(json.dumps(out))
"#;
    let (ok, out) = output(&["python3", "-c", script], Some(json!(cases).to_string().as_bytes()));
    assert!(ok, "python3 failed");
    let answers: Vec<Value> = serde_json::from_slice(&out).unwrap();
    let (mut same, mut lone_cr) = (0, 0);
    for (case, answer) in cases.iter().zip(&answers) {
        let data = hex::decode(case["hex"].as_str().unwrap()).unwrap();
        // Text keeps its line breaks in the style of its first one, as mail does.
        let kept = if case["binary"].as_bool().unwrap() { data.clone() } else { one_line_break_style(&data) };
        assert_eq!(answer["back"], hex::encode(&kept), "Python decodes wrench's {case}");
        let theirs = answer["theirs"].as_str().unwrap();
        let bare_cr = !case["binary"].as_bool().unwrap()
            && data.iter().enumerate().any(|(i, &b)| b == b'\r' && data.get(i + 1) != Some(&b'\n'));
        if bare_cr {
            lone_cr += 1;
        } else {
            assert_eq!(case["ours"].as_str().unwrap(), theirs, "{case}");
            same += 1;
        }
        let body = json!({"encoded": theirs, "header": case["header"], "outputEncoding": "hex"});
        let (status, v) = common::post_json(&cli, "/v1/quoted-printable/decode", &body).await;
        // Python leaves a lone carriage return bare; wrench reads it as the byte it is.
        let expected = hex::encode(&kept);
        assert_eq!(
            (status, v["data"]["decoded"].as_str()),
            (200, Some(expected.as_str())),
            "wrench decodes Python's {case}: {v}"
        );
    }
    assert!(same > 150 && lone_cr > 20, "{same} equal, {lone_cr} with a lone carriage return");
    eprintln!("quoted-printable: {same} encodings equal to Python's, {lone_cr} more with a lone CR decoded by it");
}

/// `data` with every line break (CRLF or LF) written as its first one is.
fn one_line_break_style(data: &[u8]) -> Vec<u8> {
    let crlf = data.iter().position(|&b| b == b'\n').is_some_and(|p| p > 0 && data[p - 1] == b'\r');
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        let crlf_here = data[i] == b'\r' && data.get(i + 1) == Some(&b'\n');
        if crlf_here || data[i] == b'\n' {
            out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            i += if crlf_here { 2 } else { 1 };
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}
