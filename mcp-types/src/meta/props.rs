//! Property test: a `Meta` decode accepts and refuses exactly the `_meta`
//! texts a decode into `Map<String, Value>` does, and reads, prints and
//! writes the same object, on generated texts rich in the corner cases the
//! scan must get right (number ranges, surrogate escapes, nesting depth,
//! non-objects) and on mutations of them (syntax errors).

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::Meta;

/// A number, often near the edge of the `f64` range.
fn number() -> impl Strategy<Value = String> {
    let int = prop_oneof![
        Just("0".to_owned()),
        (0usize..330).prop_map(|zeros| format!("1{}", "0".repeat(zeros))),
        "[1-9][0-9]{0,25}",
    ];
    let frac = prop::option::of("[0-9]{1,4}");
    let exp = prop::option::of((
        prop_oneof![Just(""), Just("+"), Just("-")],
        prop_oneof![0u32..20, 280u32..330, Just(400), Just(99_999)],
    ));
    (any::<bool>(), int, frac, exp).prop_map(|(neg, int, frac, exp)| {
        let mut n = if neg { format!("-{int}") } else { int };
        if let Some(frac) = frac {
            n = format!("{n}.{frac}");
        }
        if let Some((sign, e)) = exp {
            n = format!("{n}e{sign}{e}");
        }
        n
    })
}

/// A string literal, with escapes: surrogates alone, in pairs and out of
/// order among them.
fn string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z ]{0,3}",
        Just("é".to_owned()),
        Just(r#"\""#.to_owned()),
        Just(r"\n".to_owned()),
        Just(r"\\".to_owned()),
        prop::sample::select(vec![
            "0041", "00e9", "d800", "dbff", "d83d", "dc00", "de00", "dfff", "e000", "ffff",
        ])
        .prop_map(|unit| format!(r"\u{unit}")),
    ];
    prop::collection::vec(piece, 0..4).prop_map(|pieces| format!("\"{}\"", pieces.concat()))
}

/// Any JSON value, as text.
fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        number(),
        string(),
        Just("true".to_owned()),
        Just("null".to_owned()),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            object(inner),
        ]
    })
}

/// An object whose members' values are drawn from `inner`.
fn object(inner: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    prop::collection::vec((string(), inner), 0..4).prop_map(|members| {
        let members: Vec<String> = members.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        format!("{{ {} }}", members.join(","))
    })
}

/// An object nested near serde_json's recursion limit.
fn deep() -> impl Strategy<Value = String> {
    (118usize..132, any::<bool>()).prop_map(|(levels, arrays)| {
        let (open, close) = if arrays {
            ("[", "]")
        } else {
            (r#"{"k":"#, "}")
        };
        format!("{{\"d\":{}1{}}}", open.repeat(levels), close.repeat(levels))
    })
}

/// A `_meta` text: mostly an object, sometimes anything, sometimes with
/// one byte changed (a syntax error, or not); and whether it is one of the
/// deep ones.
fn meta_text() -> impl Strategy<Value = (String, bool)> {
    let whole = prop_oneof![
        6 => object(value()).prop_map(|t| (t, false)),
        1 => value().prop_map(|t| (t, false)),
        1 => deep().prop_map(|t| (t, true)),
    ];
    let edit = prop::option::weighted(
        0.2,
        (
            any::<prop::sample::Index>(),
            prop::sample::select(b"{}[],:\"\\ 0e-.u".to_vec()),
        ),
    );
    (whole, edit).prop_map(|((mut text, deep), edit)| {
        if let Some((at, byte)) = edit {
            let at = at.index(text.len() + 1);
            if text.is_char_boundary(at) {
                text.insert(at, char::from(byte));
            }
        }
        (text, deep)
    })
}

#[derive(Deserialize)]
struct Lazy {
    #[serde(rename = "_meta")]
    meta: Meta,
}

#[derive(Deserialize)]
struct Eager {
    #[serde(rename = "_meta")]
    meta: Map<String, Value>,
}

/// The same outcome, and when decoded the same object by every view.
fn same(
    lazy: Result<Meta, serde_json::Error>,
    eager: Result<Map<String, Value>, serde_json::Error>,
) {
    match (lazy, eager) {
        (Ok(meta), Ok(map)) => {
            assert_eq!(format!("{meta:?}"), format!("Meta({map:?})"));
            assert_eq!(
                serde_json::to_string(&meta).unwrap(),
                serde_json::to_string(&map).unwrap()
            );
            assert_eq!(meta.is_empty(), map.is_empty());
            assert_eq!(meta.into_map(), map);
        }
        (Err(_), Err(_)) => {}
        (lazy, eager) => panic!("lazy {lazy:?}, eager {eager:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn a_meta_decode_is_a_map_decode((text, deep) in meta_text()) {
        same(serde_json::from_str(&text), serde_json::from_slice(text.as_bytes()));
        // Nesting is counted from the `_meta` object (see the module doc
        // of `object`): within a message, only texts far from the limit
        // are compared.
        if deep {
            return Ok(());
        }
        let message = format!(r#"{{"_meta": {text}, "x": 1}}"#);
        same(
            serde_json::from_str::<Lazy>(&message).map(|m| m.meta),
            serde_json::from_slice::<Eager>(message.as_bytes()).map(|m| m.meta),
        );
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            same(serde_json::from_value(value.clone()), serde_json::from_value(value));
        }
    }
}
