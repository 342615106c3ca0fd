//! The head of an HTTP/1.1 request as written (RFC 9112): the request
//! line with its target in origin form, `Host`, a POST's own fields
//! ([`PostFields`], with the session's), every other field, then the
//! body's `Content-Length`.
//!
//! The fields a POST always has go out as few pieces as they can: the
//! head's start up to its `Accept` and `Content-Type` as one piece made
//! once per pool ([`Target`]), and each other own field (the routing's,
//! the session's) as its name's static prefix and its value.

use http::header::{CONTENT_LENGTH, HOST};
use http::{HeaderValue, Method, Uri};

use crate::parts::{HeaderList, PostFields};

/// [`PostFields`]' basics as they go out (the values of
/// [`headers::ACCEPT_POST`](crate::headers::ACCEPT_POST) and
/// [`headers::JSON`](crate::headers::JSON): a test checks them).
const BASICS: &[u8] = b"accept: application/json, text/event-stream\r\n\
                        content-type: application/json\r\n";

/// The start of each of a request's own fields' lines but the basics, in
/// [`PostFields::iter`]'s order: the routing, then the session.
const FIELD_PREFIXES: [&[u8]; 4] = [
    b"mcp-protocol-version: ",
    b"mcp-method: ",
    b"mcp-name: ",
    b"mcp-session-id: ",
];

/// Where a pool's HTTP/1.1 requests go: the target in origin form and
/// the `Host`, and the start of a POST of a message's head, made from them
/// once.
#[derive(Debug)]
pub(crate) struct Target {
    origin: Uri,
    host: HeaderValue,
    /// `POST {origin} HTTP/1.1`, `Host`, `Accept` and `Content-Type`,
    /// each line ended.
    post_start: Box<[u8]>,
}

impl Target {
    /// The target `origin` (`/path?query`) with `host`.
    pub(crate) fn new(origin: Uri, host: HeaderValue) -> Self {
        let mut start = Vec::new();
        write_start(&mut start, &Method::POST, &origin, &host, true);
        Target {
            origin,
            host,
            post_start: start.into_boxed_slice(),
        }
    }
}

/// The request line, `Host`, and the basics when `basics`.
fn write_start(out: &mut Vec<u8>, method: &Method, origin: &Uri, host: &HeaderValue, basics: bool) {
    out.extend_from_slice(method.as_str().as_bytes());
    out.push(b' ');
    let path = origin.path_and_query().map_or("/", |p| p.as_str());
    out.extend_from_slice(if path.is_empty() {
        b"/"
    } else {
        path.as_bytes()
    });
    out.extend_from_slice(b" HTTP/1.1\r\nhost: ");
    out.extend_from_slice(host.as_bytes());
    out.extend_from_slice(b"\r\n");
    if basics {
        out.extend_from_slice(BASICS);
    }
}

/// Writes the head of a request into `out` (cleared first): the request
/// line with the target in origin form, `Host`, the POST's own fields
/// (`post`), every field of `headers` (any `Host` or `Content-Length` there
/// left out: the connection's own go out instead), then the body's
/// `Content-Length` when it has one.
pub(crate) fn encode_head(
    out: &mut Vec<u8>,
    method: &Method,
    target: &Target,
    post: &PostFields,
    headers: &HeaderList,
    body_len: usize,
) {
    out.clear();
    match *method == Method::POST && post.basics {
        true => out.extend_from_slice(&target.post_start),
        false => write_start(out, method, &target.origin, &target.host, post.basics),
    }
    let own = [
        post.version.map(str::as_bytes),
        post.method.map(str::as_bytes),
        post.name.map(str::as_bytes),
        post.session.as_ref().map(HeaderValue::as_bytes),
    ];
    for (prefix, value) in FIELD_PREFIXES.iter().zip(own) {
        if let Some(value) = value {
            out.extend_from_slice(prefix);
            out.extend_from_slice(value);
            out.extend_from_slice(b"\r\n");
        }
    }
    for (name, value) in headers.iter() {
        if name == HOST || name == CONTENT_LENGTH {
            continue;
        }
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    if body_len > 0 {
        out.extend_from_slice(b"content-length: ");
        push_decimal(out, body_len);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

/// Appends `n` in decimal: two digits a step (a body's length has three
/// or four).
fn push_decimal(out: &mut Vec<u8>, n: usize) {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
                                2021222324252627282930313233343536373839\
                                4041424344454647484950515253545556575859\
                                6061626364656667686970717273747576777879\
                                8081828384858687888990919293949596979899";
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    while rest >= 100 {
        // Below 100: two digits of the table.
        let pair = (rest % 100) * 2;
        rest /= 100;
        at -= 2;
        digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if rest >= 10 {
        let pair = rest * 2;
        at -= 2;
        digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        at -= 1;
        // A digit: `rest` is below 10.
        digits[at] = b'0' + rest as u8;
    }
    out.extend_from_slice(&digits[at..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::{ACCEPT_POST, JSON};
    use http::HeaderName;

    fn text(out: &[u8]) -> String {
        String::from_utf8(out.to_vec()).expect("ascii")
    }

    #[test]
    fn request_head_has_the_origin_form_target_and_every_header() {
        let mut headers = HeaderList::default();
        let field = |name: &'static str, value: &'static str| {
            (
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            )
        };
        for (name, value) in [
            field("content-type", "application/json"),
            field("host", "elsewhere"),
            field("content-length", "999"),
        ] {
            headers.append(name, value);
        }
        let host = HeaderValue::from_static("example.com:8080");
        let mut out = b"stale".to_vec();
        let target = Target::new("/mcp?x=1".parse().expect("uri"), host.clone());
        let none = PostFields::default();
        encode_head(&mut out, &Method::POST, &target, &none, &headers, 1234);
        assert_eq!(
            text(&out),
            "POST /mcp?x=1 HTTP/1.1\r\nhost: example.com:8080\r\n\
             content-type: application/json\r\ncontent-length: 1234\r\n\r\n"
        );
        let target = Target::new("/".parse().expect("uri"), host);
        encode_head(
            &mut out,
            &Method::GET,
            &target,
            &none,
            &HeaderList::default(),
            0,
        );
        assert_eq!(out, b"GET / HTTP/1.1\r\nhost: example.com:8080\r\n\r\n");
    }

    #[test]
    fn lengths_are_written_in_decimal() {
        for n in [
            0,
            7,
            10,
            99,
            100,
            101,
            999,
            1000,
            65_535,
            1_234_567,
            usize::MAX,
        ] {
            let mut out = b"x".to_vec();
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}").as_bytes());
        }
    }

    /// The head written from the POST's own fields is the one written from
    /// the same fields in a list, in the same order.
    #[test]
    fn a_posts_own_fields_go_out_as_the_same_fields_in_a_list() {
        let target = Target::new("/mcp".parse().expect("uri"), HeaderValue::from_static("h"));
        let value = HeaderValue::from_static;
        let mut extra = HeaderList::default();
        extra.append(HeaderName::from_static("x-a"), value("1"));
        for post in [
            PostFields::default(),
            PostFields {
                basics: true,
                ..PostFields::default()
            },
            PostFields {
                basics: true,
                version: Some("2026-07-28"),
                method: Some("tools/call"),
                name: Some("echo"),
                session: None,
            },
            PostFields {
                basics: false,
                version: Some("2025-11-25"),
                method: None,
                name: Some("n"),
                session: Some(value("s-1")),
            },
        ] {
            let mut fixed = Vec::new();
            encode_head(&mut fixed, &Method::POST, &target, &post, &extra, 3);
            let mut listed = HeaderList::default();
            for (name, value) in post.iter() {
                listed.append(name.clone(), value.to_value().expect("a value"));
            }
            for (name, value) in extra.iter() {
                listed.append(name.clone(), value.clone());
            }
            let mut plain = Vec::new();
            let none = PostFields::default();
            encode_head(&mut plain, &Method::POST, &target, &none, &listed, 3);
            assert_eq!(text(&fixed), text(&plain), "{post:?}");
        }
        let basics = format!(
            "accept: {}\r\ncontent-type: {}\r\n",
            ACCEPT_POST.to_str().expect("ascii"),
            JSON.to_str().expect("ascii")
        );
        assert_eq!(BASICS, basics.as_bytes());
    }
}
