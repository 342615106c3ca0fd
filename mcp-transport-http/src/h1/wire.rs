//! The HTTP/1.1 wire format of a response (RFC 9112): its head as parsed
//! (bounded in size and header count; [`scan`] reads the usual shape,
//! `httparse` any other), and how its body is delimited. The request head
//! is [`request_head`](super::request_head)'s.

use bytes::{Buf, BytesMut};
use http::header::{CONTENT_TYPE, LOCATION, WWW_AUTHENTICATE};
use http::{HeaderName, HeaderValue, StatusCode};

use crate::headers::{SESSION_ID, usual_content_type};
use crate::parts::{HeaderList, ResponseFields};

mod scan;

use scan::Top;

/// The largest response head read (status line and headers): a server
/// cannot make the client buffer more before the body starts.
pub(crate) const MAX_HEAD: usize = 64 * 1024;

/// The most header fields a response head may have.
const MAX_HEADERS: usize = 100;

/// Why a response could not be read as HTTP/1.1.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WireError {
    /// The status line and headers ran past [`MAX_HEAD`].
    #[error("the response head is larger than {MAX_HEAD} bytes")]
    HeadTooLarge,
    /// The response head broke the syntax.
    #[error("malformed response head ({0})")]
    Head(httparse::Error),
    /// A header name or value the `http` types refuse.
    #[error("malformed response header")]
    Header,
    /// `Content-Length` is not one decimal number.
    #[error("invalid Content-Length")]
    ContentLength,
    /// `101 Switching Protocols`, never asked for.
    #[error("unexpected 101 Switching Protocols")]
    Upgrade,
    /// The chunked body broke its framing.
    #[error("malformed chunked body ({0})")]
    Chunk(&'static str),
    /// The server closed the connection before the response's end.
    #[error("the server closed the connection before the end of the response")]
    Closed,
}

/// How the body of a response is delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// No body (`204`, `304`).
    Empty,
    /// `Content-Length` bytes.
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Everything until the server closes the connection.
    UntilClose,
}

/// A parsed response head.
#[derive(Debug)]
pub(crate) struct Head {
    pub(crate) status: StatusCode,
    /// The first `Content-Type`, which every response's reader looks at:
    /// kept apart (without an auth provider it is then often the only
    /// field kept, and the field list is not allocated).
    pub(crate) content_type: Option<HeaderValue>,
    /// The end-to-end fields (the hop-by-hop ones are this layer's).
    pub(crate) headers: HeaderList,
    pub(crate) framing: Framing,
    /// Whether the connection may carry another exchange after this one.
    pub(crate) keep_alive: bool,
}

/// What the bytes read so far hold.
#[derive(Debug)]
pub(crate) enum Parsed {
    /// Not a whole head yet.
    Partial,
    /// A `1xx` interim response, taken out of the buffer (skipped).
    Interim,
    /// The final response head, taken out of the buffer.
    Final(Head),
}

/// How many kept fields' places [`parse_head`] notes on the stack: the
/// few the transport reads (an auth provider's every field spills).
const INLINE_FIELDS: usize = 4;

/// Where one kept field lies in the head: name start and end, value
/// start and end; then its name's place in [`READ_FIELDS`] (`u32::MAX`
/// for another name).
type Span = [u32; 5];

/// The response fields the transport reads itself, named as the `http`
/// crate spells them: a response keeps only these unless all are wanted
/// ([`ResponseFields::All`], for an auth provider).
static READ_FIELDS: [HeaderName; 4] = [CONTENT_TYPE, SESSION_ID, LOCATION, WWW_AUTHENTICATE];

/// What a field's name is to the transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FieldName {
    ContentLength,
    TransferEncoding,
    Connection,
    KeepAlive,
    /// One the transport reads: its place in [`READ_FIELDS`].
    Read(usize),
    /// Any other.
    Other,
}

/// What the name `name` spells, in any case: told by its length first,
/// then one or two comparisons (no walk over a list of names). Most
/// servers write names in lowercase, so a name is compared as it is
/// first, and folded only when that fails.
fn field_name(name: &[u8]) -> FieldName {
    let is = |known: &str| name == known.as_bytes() || name.eq_ignore_ascii_case(known.as_bytes());
    match name.len() {
        8 if is("location") => FieldName::Read(2),
        10 if is("connection") => FieldName::Connection,
        10 if is("keep-alive") => FieldName::KeepAlive,
        12 if is("content-type") => FieldName::Read(0),
        14 if is("content-length") => FieldName::ContentLength,
        14 if is("mcp-session-id") => FieldName::Read(1),
        16 if is("www-authenticate") => FieldName::Read(3),
        17 if is("transfer-encoding") => FieldName::TransferEncoding,
        _ => FieldName::Other,
    }
}

/// Parses the response head at the start of `buf`; a whole head (interim
/// or final) is taken out of `buf`. The end-to-end fields kept are the
/// ones `fields` asks for.
///
/// A head in the usual shape is read by [`scan`]; any other (or a part of
/// one) by `httparse`, which reads everything [`scan`] does the same way.
/// The final head's header values are views of its bytes (no copy, no
/// allocation per value), and the names the transport reads are the
/// static ones: the head's one allocation is its field list.
pub(crate) fn parse_head(buf: &mut BytesMut, fields: ResponseFields) -> Result<Parsed, WireError> {
    let mut seen = Seen::new(fields);
    let mut found = [scan::NO_FIELD; scan::FIELDS];
    let (top, status) = match scan::scan(buf, &mut found) {
        Some((top, count)) => (top, seen.read(top, buf, found[..count].iter().copied())?),
        None => match parse_other(buf, &mut seen)? {
            Some(read) => read,
            None => return Ok(Parsed::Partial),
        },
    };
    let Top { len, http11, .. } = top;
    let Some(status) = status else {
        buf.advance(len);
        return Ok(Parsed::Interim);
    };
    let spans = seen.spans();
    let lengths = &seen.lengths;
    let framing = lengths.framing(status);
    // A response with both lengths may have been smuggled: not reused.
    let both_lengths = lengths.chunked.is_some() && lengths.length.is_some();
    let keep_alive = http11 && framing != Framing::UntilClose && !both_lengths && !lengths.close;
    // Nothing kept but a usual content type (the common response without
    // an auth provider): the head is read past, no view of it is made.
    let content_type = seen.content_type;
    let usual = content_type.map(|[from, to]| {
        usual_content_type(&buf[from as usize..to as usize]).map(|(_, value)| value)
    });
    if spans.is_empty()
        && let None | Some(Some(_)) = usual
    {
        buf.advance(len);
        return Ok(Parsed::Final(Head {
            status,
            content_type: usual.flatten(),
            headers: HeaderList::default(),
            framing,
            keep_alive,
        }));
    }
    kept_head(buf, len, content_type, spans, status, framing, keep_alive)
}

/// [`parse_head`] for a head [`scan::scan`] did not read (out of line:
/// most heads are in its shape), by `httparse`: what [`Seen::read`]
/// gives of it, `None` while the head is not whole.
#[inline(never)]
fn parse_other(
    buf: &BytesMut,
    seen: &mut Seen,
) -> Result<Option<(Top, Option<StatusCode>)>, WireError> {
    // Left uninitialized: filling a hundred empty fields costs more than
    // parsing a small head.
    let mut slots =
        [const { std::mem::MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut parsed = httparse::Response::new(&mut []);
    let config = httparse::ParserConfig::default();
    let len = match config.parse_response_with_uninit_headers(&mut parsed, buf, &mut slots) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD => {
            return Err(WireError::HeadTooLarge);
        }
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(WireError::Head(e)),
    };
    let top = Top {
        len,
        http11: parsed.version == Some(1),
        code: parsed.code.unwrap_or_default(),
    };
    let fields = parsed.headers.iter().map(|f| (f.name.as_bytes(), f.value));
    Ok(Some((top, seen.read(top, buf, fields)?)))
}

/// The status of a whole head, `None` for an interim one (`1xx`).
fn final_status(top: Top) -> Result<Option<StatusCode>, WireError> {
    if top.len > MAX_HEAD {
        return Err(WireError::HeadTooLarge);
    }
    let status =
        StatusCode::from_u16(top.code).map_err(|_| WireError::Head(httparse::Error::Status))?;
    if status == StatusCode::SWITCHING_PROTOCOLS {
        return Err(WireError::Upgrade);
    }
    Ok((!status.is_informational()).then_some(status))
}

/// What a head's fields said, noted as they are read: the kept fields'
/// places, the first `Content-Type`'s, the lengths.
struct Seen {
    want: ResponseFields,
    /// A few fields on the stack (the transport reads no more), the rest
    /// spilled: zeroing room for all 100 would cost more than the parse.
    inline: [Span; INLINE_FIELDS],
    spilled: Vec<Span>,
    kept: usize,
    content_type: Option<[u32; 2]>,
    lengths: Lengths,
}

impl Seen {
    fn new(want: ResponseFields) -> Self {
        Seen {
            want,
            inline: [[0; 5]; INLINE_FIELDS],
            spilled: Vec::new(),
            kept: 0,
            content_type: None,
            lengths: Lengths::default(),
        }
    }

    /// A whole head's status, its `fields` (views of `head`, which starts
    /// the buffer) noted; `None` for an interim head (`1xx`), whose fields
    /// are not looked at.
    fn read<'b>(
        &mut self,
        top: Top,
        head: &'b [u8],
        fields: impl Iterator<Item = (&'b [u8], &'b [u8])>,
    ) -> Result<Option<StatusCode>, WireError> {
        let status = final_status(top)?;
        if status.is_some() {
            self.note_all(head, fields)?;
        }
        Ok(status)
    }

    /// Notes each of a head's `fields` (views of `head`, which starts the
    /// buffer).
    fn note_all<'b>(
        &mut self,
        head: &'b [u8],
        fields: impl Iterator<Item = (&'b [u8], &'b [u8])>,
    ) -> Result<(), WireError> {
        let start = head.as_ptr() as usize;
        let at = |part: &[u8]| {
            let from = part.as_ptr() as usize - start;
            // Within MAX_HEAD (64 KiB): fits.
            [from as u32, (from + part.len()) as u32]
        };
        let all = self.want == ResponseFields::All;
        for (name, value) in fields {
            let known = match field_name(name) {
                FieldName::Read(k) => Some(k),
                FieldName::Other => None,
                hop_by_hop => {
                    // About this connection: consumed here, not kept
                    // (`Content-Length` is kept as well).
                    if self.lengths.note(hop_by_hop, value)? {
                        continue;
                    }
                    None
                }
            };
            if known == Some(0) && self.content_type.is_none() {
                self.content_type = Some(at(value));
                // Kept in the list too only for an auth provider, which
                // sees every field.
                if !all {
                    continue;
                }
            }
            if !all && known.is_none() {
                continue;
            }
            let [name_from, name_to] = at(name);
            let [value_from, value_to] = at(value);
            // At most four places: fits.
            let known = known.map_or(u32::MAX, |k| k as u32);
            let span = [name_from, name_to, value_from, value_to, known];
            match self.inline.get_mut(self.kept) {
                Some(slot) => *slot = span,
                None => {
                    if self.spilled.is_empty() {
                        self.spilled.extend_from_slice(&self.inline);
                    }
                    self.spilled.push(span);
                }
            }
            self.kept += 1;
        }
        Ok(())
    }

    /// The kept fields' places, in order.
    fn spans(&self) -> &[Span] {
        match self.kept <= INLINE_FIELDS {
            true => &self.inline[..self.kept],
            false => &self.spilled,
        }
    }
}

/// [`parse_head`]'s head with fields kept (for the transport's reads, or
/// for an auth provider): its fields as views of the head's bytes. Out of
/// line: the common response keeps none.
#[inline(never)]
fn kept_head(
    buf: &mut BytesMut,
    len: usize,
    content_type: Option<[u32; 2]>,
    spans: &[Span],
    status: StatusCode,
    framing: Framing,
    keep_alive: bool,
) -> Result<Parsed, WireError> {
    let head = buf.split_to(len).freeze();
    let content_type = match content_type {
        Some([from, to]) => Some(
            HeaderValue::from_maybe_shared(head.slice(from as usize..to as usize))
                .map_err(|_| WireError::Header)?,
        ),
        None => None,
    };
    let mut headers = HeaderList::with_capacity(spans.len());
    for &[name_from, name_to, value_from, value_to, known] in spans {
        let name = match READ_FIELDS.get(known as usize) {
            Some(known) => known.clone(),
            None => HeaderName::from_bytes(&head[name_from as usize..name_to as usize])
                .map_err(|_| WireError::Header)?,
        };
        let value = head.slice(value_from as usize..value_to as usize);
        let value = HeaderValue::from_maybe_shared(value).map_err(|_| WireError::Header)?;
        headers.append(name, value);
    }
    Ok(Parsed::Final(Head {
        status,
        content_type,
        headers,
        framing,
        keep_alive,
    }))
}

/// What the head's fields say about the body's length and the connection,
/// noted as they are read (no lookups in the field list afterwards).
#[derive(Default)]
struct Lengths {
    /// `Content-Length` (every value agreeing).
    length: Option<u64>,
    /// With `Transfer-Encoding`: whether its last coding is `chunked`.
    chunked: Option<bool>,
    /// `Connection: close`.
    close: bool,
}

impl Lengths {
    /// Notes one field of a name it reads; `true` when it is hop-by-hop
    /// (`Connection`, `Keep-Alive`, `Transfer-Encoding`: about this
    /// connection, consumed here and not kept in the response's fields).
    fn note(&mut self, name: FieldName, value: &[u8]) -> Result<bool, WireError> {
        let list = || value.split(|b| *b == b',').map(<[u8]>::trim_ascii);
        match name {
            FieldName::ContentLength => {
                // One number, the usual value: read as it is.
                if self.length.is_none()
                    && let Some(n) = parse_decimal(value)
                {
                    self.length = Some(n);
                    return Ok(false);
                }
                // Repeated values (or a list) must agree.
                for part in list() {
                    let n = parse_decimal(part).ok_or(WireError::ContentLength)?;
                    if self.length.is_some_and(|l| l != n) {
                        return Err(WireError::ContentLength);
                    }
                    self.length = Some(n);
                }
                Ok(false)
            }
            FieldName::TransferEncoding => {
                // The last coding decides, over every field.
                if let Some(last) = list().rfind(|c| !c.is_empty()) {
                    self.chunked = Some(last.eq_ignore_ascii_case(b"chunked"));
                } else {
                    self.chunked.get_or_insert(false);
                }
                Ok(true)
            }
            FieldName::Connection => {
                self.close |= list().any(|t| t.eq_ignore_ascii_case(b"close"));
                Ok(true)
            }
            FieldName::KeepAlive => Ok(true),
            FieldName::Read(_) | FieldName::Other => Ok(false),
        }
    }

    /// RFC 9112 section 6.3, for a response to a request that is not
    /// `HEAD`; a body not chunked last runs to the close.
    fn framing(&self, status: StatusCode) -> Framing {
        if status == StatusCode::NO_CONTENT || status == StatusCode::NOT_MODIFIED {
            return Framing::Empty;
        }
        match (self.chunked, self.length) {
            (Some(true), _) => Framing::Chunked,
            (Some(false), _) | (None, None) => Framing::UntilClose,
            (None, Some(0)) => Framing::Empty,
            (None, Some(n)) => Framing::Length(n),
        }
    }
}

/// A non-empty run of ASCII digits that fits in a `u64`.
fn parse_decimal(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(digits.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0')))
}

#[cfg(test)]
mod tests;
