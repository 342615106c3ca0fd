//! Unit tests of the response head's parse (`wire.rs`).

use super::*;
use http::header::CONTENT_LENGTH;

/// Parses `bytes` as a buffer holding them and nothing else; the
/// buffer's rest after.
fn parse(bytes: &[u8]) -> (Result<Parsed, WireError>, BytesMut) {
    let mut buf = BytesMut::from(bytes);
    let parsed = parse_head(&mut buf, ResponseFields::All);
    (parsed, buf)
}

fn head(text: &str) -> Head {
    match parse(text.as_bytes()) {
        (Ok(Parsed::Final(head)), rest) => {
            assert!(rest.is_empty(), "the whole head is taken");
            head
        }
        other => panic!("not a final head: {other:?}"),
    }
}

#[test]
fn framing_follows_rfc_9112() {
    let h = head("HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::Length(12), true));
    let h = head("HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::Chunked, true));
    let h = head("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, gzip\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::UntilClose, false));
    let h = head("HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::Empty, true));
    let h = head("HTTP/1.1 204 No Content\r\n\r\n");
    assert_eq!(h.framing, Framing::Empty);
    let h = head("HTTP/1.1 200 OK\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::UntilClose, false));
    let h = head("HTTP/1.1 200 OK\r\ncontent-length: 3\r\nconnection: keep-alive, Close\r\n\r\n");
    assert!(!h.keep_alive);
    let h = head("HTTP/1.0 200 OK\r\ncontent-length: 3\r\n\r\n");
    assert!(!h.keep_alive);
    // Both: Transfer-Encoding wins, and the connection is not reused.
    let h = head("HTTP/1.1 200 OK\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::Chunked, false));
}

#[test]
fn heads_with_more_fields_than_the_stack_room_keep_them_all_in_order() {
    let fields: String = (0..INLINE_FIELDS * 3)
        .map(|i| format!("x-f{i}: v{i}\r\n"))
        .collect();
    let h = head(&format!(
        "HTTP/1.1 200 OK\r\nconnection: close\r\n{fields}\r\n"
    ));
    let kept: Vec<String> = h
        .headers
        .iter()
        .map(|(n, v)| format!("{}={}", n.as_str(), v.to_str().unwrap()))
        .collect();
    let expected: Vec<String> = (0..INLINE_FIELDS * 3)
        .map(|i| format!("x-f{i}=v{i}"))
        .collect();
    assert_eq!(kept, expected);
}

#[test]
fn the_read_names_spell_the_read_fields() {
    for (k, known) in READ_FIELDS.iter().enumerate() {
        let upper = known.as_str().to_ascii_uppercase();
        assert_eq!(field_name(known.as_str().as_bytes()), FieldName::Read(k));
        assert_eq!(field_name(upper.as_bytes()), FieldName::Read(k));
    }
    assert_eq!(field_name(b"Content-TYPE"), FieldName::Read(0));
    assert_eq!(field_name(b"content-typo"), FieldName::Other);
    assert_eq!(
        field_name(b"Transfer-Encoding"),
        FieldName::TransferEncoding
    );
    assert_eq!(field_name(b"content-length"), FieldName::ContentLength);
    assert_eq!(field_name(b"connection"), FieldName::Connection);
    assert_eq!(field_name(b"KEEP-ALIVE"), FieldName::KeepAlive);
    assert_eq!(field_name(b"date"), FieldName::Other);
}

#[test]
fn without_an_auth_provider_only_the_fields_the_transport_reads_are_kept() {
    let text = "HTTP/1.1 401 Unauthorized\r\nDate: x\r\nContent-Type: text/plain\r\n\
                X-Powered-By: y\r\nMCP-Session-Id: s\r\nLocation: /a\r\n\
                WWW-Authenticate: Bearer a\r\nWWW-Authenticate: Basic\r\n\
                Content-Length: 0\r\n\r\n";
    let mut buf = BytesMut::from(text.as_bytes());
    let Ok(Parsed::Final(h)) = parse_head(&mut buf, ResponseFields::Read) else {
        panic!("not a final head")
    };
    let kept: Vec<String> = h
        .headers
        .iter()
        .map(|(n, v)| format!("{}={}", n.as_str(), v.to_str().unwrap()))
        .collect();
    assert_eq!(
        h.content_type.as_ref().map(HeaderValue::as_bytes),
        Some(&b"text/plain"[..]),
        "the content type is kept apart"
    );
    assert_eq!(
        kept,
        [
            "mcp-session-id=s",
            "location=/a",
            "www-authenticate=Bearer a",
            "www-authenticate=Basic",
        ]
    );
    assert_eq!(
        h.framing,
        Framing::Empty,
        "the framing fields are read all the same"
    );
    let all = head(text);
    assert_eq!(
        all.headers.iter().count(),
        8,
        "an auth provider sees every field"
    );
    assert_eq!(
        all.content_type, h.content_type,
        "and the content type apart"
    );
}

/// A head that keeps nothing but a usual content type is read past
/// (its value the static one); any other value is a view of the head.
#[test]
fn a_usual_content_type_needs_no_view_of_the_head() {
    for (value, rest) in [
        ("application/json", "{}"),
        ("text/event-stream", "data: x"),
        ("application/json; charset=utf-8", "{}"),
        ("Application/JSON", "{}"),
    ] {
        let text = format!(
            "HTTP/1.1 200 OK\r\nDate: x\r\ncontent-type: {value}\r\ncontent-length: 2\r\n\r\n{rest}"
        );
        let mut buf = BytesMut::from(text.as_bytes());
        let Ok(Parsed::Final(h)) = parse_head(&mut buf, ResponseFields::Read) else {
            panic!("not a final head: {value}")
        };
        assert_eq!(&buf[..], rest.as_bytes(), "only the head is taken");
        assert_eq!(
            h.content_type.as_ref().map(HeaderValue::as_bytes),
            Some(value.as_bytes())
        );
        assert_eq!(h.headers.iter().count(), 0);
        assert_eq!(h.framing, Framing::Length(2));
    }
}

#[test]
fn headers_and_status_are_kept() {
    let h = head("HTTP/1.1 404 Not Found\r\nMcp-Session-Id: s-1\r\nContent-Length: 2\r\n\r\n");
    assert_eq!(h.status, StatusCode::NOT_FOUND);
    assert_eq!(h.headers.get(&SESSION_ID).unwrap(), "s-1");
    assert_eq!(h.headers.get(&CONTENT_LENGTH).unwrap(), "2");
    let h = head(
        "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\
         Transfer-Encoding: chunked\r\nDate: x\r\n\r\n",
    );
    let names: Vec<&str> = h.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["date"], "hop-by-hop fields are consumed");
}

#[test]
fn header_values_are_views_of_the_head_and_checked_as_values() {
    let text = "HTTP/1.1 200 OK\r\nMCP-Session-Id: abc\r\nX-Custom: one two\r\nX-Custom: three\r\n\r\nbody";
    let (parsed, rest) = parse(text.as_bytes());
    let Ok(Parsed::Final(h)) = parsed else {
        panic!("not a final head: {parsed:?}")
    };
    assert_eq!(&rest[..], b"body", "only the head is taken");
    let headers = &h.headers;
    assert_eq!(headers.get(&SESSION_ID).unwrap(), "abc");
    let custom_name = HeaderName::from_static("x-custom");
    let custom: Vec<_> = headers.get_all(&custom_name).collect();
    assert_eq!(custom, ["one two", "three"]);
    // A value with a byte a header value may not hold is refused
    // (httparse lets obs-text through; DEL is not).
    let (bad, _) = parse(b"HTTP/1.1 200 OK\r\nx: a\x7fb\r\n\r\n");
    assert!(
        matches!(bad, Err(WireError::Header | WireError::Head(_))),
        "{bad:?}"
    );
}

#[test]
fn bad_lengths_and_heads_are_typed_errors() {
    for bad in [
        "HTTP/1.1 200 OK\r\ncontent-length: 1, 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\ncontent-length: 99999999999999999999\r\n\r\n",
        "HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\n",
    ] {
        assert!(
            matches!(parse(bad.as_bytes()).0, Err(WireError::ContentLength)),
            "{bad}"
        );
    }
    let same = head("HTTP/1.1 200 OK\r\ncontent-length: 3, 3\r\n\r\n");
    assert_eq!(same.framing, Framing::Length(3));
    assert!(matches!(
        parse(b"HTTP/1.1 20 OK\r\n\r\n").0,
        Err(WireError::Head(_))
    ));
    assert!(matches!(
        parse(b"HTTP/1.1 101 Switching Protocols\r\n\r\n").0,
        Err(WireError::Upgrade)
    ));
    let mut long = b"HTTP/1.1 200 OK\r\nx: ".to_vec();
    long.resize(MAX_HEAD + 1, b'a');
    assert!(matches!(parse(&long).0, Err(WireError::HeadTooLarge)));
    let many = format!(
        "HTTP/1.1 200 OK\r\n{}\r\n",
        "a: b\r\n".repeat(MAX_HEADERS + 1)
    );
    assert!(matches!(parse(many.as_bytes()).0, Err(WireError::Head(_))));
}

proptest::proptest! {
    #[test]
    fn arbitrary_heads_parse_or_fail_without_panicking(
        head in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
    ) {
        let mut text = b"HTTP/1.1 200 OK\r\n".to_vec();
        text.extend_from_slice(&head);
        let _ = parse(&head);
        let _ = parse(&text);
    }

    #[test]
    fn framing_fields_in_any_mix_give_a_consistent_head_or_a_typed_error(
        fields in proptest::collection::vec(
            (
                proptest::sample::select(vec![
                    "Content-Length", "transfer-encoding", "Connection", "keep-alive", "x-a",
                ]),
                "[0-9a-zA-Z ,;-]{0,12}",
            ),
            0..6,
        ),
        code in proptest::sample::select(vec![200u16, 202, 204, 304, 404]),
    ) {
        let mut text = format!("HTTP/1.1 {code} X\r\n");
        for (name, value) in &fields {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        text.push_str("\r\n");
        match parse(text.as_bytes()) {
            (Ok(Parsed::Final(h)), rest) => {
                proptest::prop_assert!(rest.is_empty());
                proptest::prop_assert!(!(h.keep_alive && h.framing == Framing::UntilClose));
                let hop = ["transfer-encoding", "connection", "keep-alive"];
                proptest::prop_assert!(hop.iter().all(|n| !h.headers.contains(&HeaderName::from_static(n))));
            }
            (Ok(other), _) => proptest::prop_assert!(false, "not a final head: {:?}", other),
            (Err(e), _) => proptest::prop_assert!(
                matches!(e, WireError::ContentLength | WireError::Head(_) | WireError::Header),
                "{}", e
            ),
        }
    }
}

#[test]
fn interim_responses_are_skipped_and_partial_heads_wait() {
    let text = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n";
    let mut buf = BytesMut::from(&text[..]);
    assert!(matches!(
        parse_head(&mut buf, ResponseFields::All),
        Ok(Parsed::Interim)
    ));
    assert_eq!(&buf[..], &text[25..], "the interim head is taken out");
    assert!(matches!(
        parse_head(&mut buf, ResponseFields::Read),
        Ok(Parsed::Partial)
    ));
    assert_eq!(&buf[..], &text[25..], "a partial head stays");
}
