//! W3C Trace Context's `traceparent` (<https://www.w3.org/TR/trace-context/#traceparent-header>),
//! as a client puts it in a request's `params._meta`: `00-<trace id>-<parent id>-<flags>`.

/// A parsed `traceparent`: the caller's trace, the caller's span, and its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceParent {
    pub(crate) trace_id: [u8; 16],
    pub(crate) parent_id: [u8; 8],
    pub(crate) flags: u8,
}

impl TraceParent {
    /// Parses `value`, or `None` when it is not a valid `traceparent`: a context that cannot be
    /// read starts a new trace, as the W3C rules say, and is never an error of the request.
    pub(crate) fn parse(value: &str) -> Option<Self> {
        let mut fields = value.split('-');
        let version = hex_array::<1>(fields.next()?)?[0];
        let trace_id = hex_array::<16>(fields.next()?)?;
        let parent_id = hex_array::<8>(fields.next()?)?;
        let flags = hex_array::<1>(fields.next()?)?[0];
        // Version 00 has exactly four fields; a later version may append more, version ff is
        // invalid.
        let valid_version = match version {
            0x00 => fields.next().is_none(),
            0xff => false,
            _ => true,
        };
        let all_zero = |bytes: &[u8]| bytes.iter().all(|&byte| byte == 0);
        (valid_version && !all_zero(&trace_id) && !all_zero(&parent_id)).then_some(Self {
            trace_id,
            parent_id,
            flags,
        })
    }
}

/// `N` bytes from exactly `2 * N` lowercase hex digits (the format allows no other case).
fn hex_array<const N: usize>(text: &str) -> Option<[u8; N]> {
    let digits = text.as_bytes();
    if digits.len() != 2 * N {
        return None;
    }
    let nibble = |digit: u8| match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    };
    let mut bytes = [0; N];
    for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::TraceParent;

    const EXAMPLE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn reads_the_w3c_example() {
        let parent = TraceParent::parse(EXAMPLE).unwrap();
        assert_eq!(parent.trace_id[..4], [0x4b, 0xf9, 0x2f, 0x35]);
        assert_eq!(
            parent.parent_id,
            [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]
        );
        assert_eq!(parent.flags, 0x01);
    }

    #[test]
    fn a_later_version_may_append_fields() {
        let later = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes";
        assert!(TraceParent::parse(later).is_some());
    }

    #[test]
    fn refuses_what_the_format_does_not_allow() {
        for invalid in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e47zz-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceParent::parse(invalid), None, "{invalid:?}");
        }
    }
}
