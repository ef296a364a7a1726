//! How a kept value is written into its slot: CBOR, with every `Some` marked by a one-byte tag.
//!
//! Serde's self-describing formats write `Some(x)` as `x`, so `Some(None)`, `Some(())`,
//! `Some(Value::Null)` and `Some(UnitStruct)` all read back as `None`. Here `Some(x)` is written
//! as tag [`SOME`] around `x` (one byte more per `Some`), at any depth, and read back through a
//! deserializer that turns the tag into `visit_some`. A value without the tag (a state minted
//! before the tag existed) still reads as `Some` of itself, as it did.

use std::fmt::{self, Display};

use ciborium::Value as Cbor;
use serde::de::{self, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize, Serializer};

/// The CBOR tag around the content of a `Some` (unassigned in the IANA registry; one byte).
pub(crate) const SOME: u64 = 6;

/// Big integers, as ciborium writes an `i128`/`u128` beyond 64 bits.
const BIGPOS: u64 = 2;
const BIGNEG: u64 = 3;

/// `value` in CBOR, its `Some`s marked.
pub(crate) fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    ciborium::into_writer(&Marked(value), &mut bytes).map_err(|error| error.to_string())?;
    Ok(bytes)
}

/// A deserializer reading a kept value straight from its slot's bytes, marked `Some`s back as
/// `Some`. A string equal to one of `literals` (the tool body's string literals, sorted) is lent
/// out as that literal, so a kept `&'static str` comes back. After deserializing,
/// [`Reader::is_at_end`] says whether the slot held anything more.
pub(crate) fn reader<'a>(bytes: &'a [u8], literals: &'static [&'static str]) -> Reader<'a> {
    Reader {
        bytes,
        at: 0,
        literals,
        depth: MAX_DEPTH,
    }
}

/// `value` with the marks taken off, for showing it as JSON.
pub(crate) fn unmarked(value: Cbor) -> Cbor {
    match value {
        Cbor::Tag(SOME, inner) => unmarked(*inner),
        Cbor::Tag(tag, inner) => Cbor::Tag(tag, Box::new(unmarked(*inner))),
        Cbor::Array(items) => Cbor::Array(items.into_iter().map(unmarked).collect()),
        Cbor::Map(entries) => Cbor::Map(
            entries
                .into_iter()
                .map(|(key, value)| (unmarked(key), unmarked(value)))
                .collect(),
        ),
        other => other,
    }
}

// ---------------------------------------------------------------- writing

/// A value serialized with its `Some`s marked.
struct Marked<'a, T: ?Sized>(&'a T);

impl<T: Serialize + ?Sized> Serialize for Marked<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Marking(serializer))
    }
}

/// A serializer (or one of its compound serializers) that marks `Some` and passes every
/// nested value on marked.
struct Marking<S>(S);

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method(self, $($arg: $ty),*) -> Result<S::Ok, S::Error> {
            self.0.$method($($arg),*)
        }
    )*};
}

impl<S: Serializer> Serializer for Marking<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Marking<S::SerializeSeq>;
    type SerializeTuple = Marking<S::SerializeTuple>;
    type SerializeTupleStruct = Marking<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Marking<S::SerializeTupleVariant>;
    type SerializeMap = Marking<S::SerializeMap>;
    type SerializeStruct = Marking<S::SerializeStruct>;
    type SerializeStructVariant = Marking<S::SerializeStructVariant>;

    forward! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_f32(v: f32);
        serialize_f64(v: f64);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        ciborium::tag::Required::<_, SOME>(Marked(value)).serialize(self.0)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &Marked(value))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, index, variant, &Marked(value))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(Marking)
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(Marking)
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0.serialize_tuple_struct(name, len).map(Marking)
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0
            .serialize_tuple_variant(name, index, variant, len)
            .map(Marking)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(Marking)
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.0.serialize_struct(name, len).map(Marking)
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0
            .serialize_struct_variant(name, index, variant, len)
            .map(Marking)
    }

    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.collect_str(value)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! compound {
    ($($trait:ident { $($method:ident),* })*) => {$(
        impl<S: ser::$trait> ser::$trait for Marking<S> {
            type Ok = S::Ok;
            type Error = S::Error;
            $(
                fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), S::Error> {
                    self.0.$method(&Marked(value))
                }
            )*
            fn end(self) -> Result<S::Ok, S::Error> {
                self.0.end()
            }
        }
    )*};
}

compound! {
    SerializeSeq { serialize_element }
    SerializeTuple { serialize_element }
    SerializeTupleStruct { serialize_field }
    SerializeTupleVariant { serialize_field }
    SerializeMap { serialize_key, serialize_value }
}

impl<S: ser::SerializeStruct> ser::SerializeStruct for Marking<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), S::Error> {
        self.0.serialize_field(key, &Marked(value))
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

impl<S: ser::SerializeStructVariant> ser::SerializeStructVariant for Marking<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), S::Error> {
        self.0.serialize_field(key, &Marked(value))
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

// ---------------------------------------------------------------- reading
//
// Read from the slot's bytes as they stream by, without building a CBOR tree first: a round
// restores every kept value, and a tree costs an allocation per string, list and map.

/// How deep a kept value may nest (ciborium's own limit when it wrote it).
const MAX_DEPTH: usize = 256;

/// CBOR's major types (RFC 8949 §3.1).
const UNSIGNED: u8 = 0;
const NEGATIVE: u8 = 1;
const BYTES: u8 = 2;
const TEXT: u8 = 3;
const ARRAY: u8 = 4;
const MAP: u8 = 5;
const TAG: u8 = 6;
const SIMPLE: u8 = 7;

/// The additional information that marks an indefinite length, and the item that ends one.
const INDEFINITE: u8 = 31;
const BREAK: u8 = 0xff;

/// Why a kept value did not decode as its type.
#[derive(Debug)]
pub(crate) struct ReadError(String);

impl Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadError {}

impl de::Error for ReadError {
    fn custom<T: Display>(message: T) -> Self {
        Self(message.to_string())
    }
}

fn malformed() -> ReadError {
    de::Error::custom("malformed CBOR")
}

/// One item's head: its major type and its argument (a value, a length, a tag, or a float's
/// bits); `None` for an indefinite length.
#[derive(Clone, Copy)]
struct Head {
    major: u8,
    info: u8,
    argument: Option<u64>,
}

/// Deserializes a kept value as ciborium would, except that a marked `Some` is one.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    literals: &'static [&'static str],
    /// How much deeper values may still nest.
    depth: usize,
}

impl<'a> Reader<'a> {
    /// Whether every byte of the slot was read.
    pub(crate) fn is_at_end(&self) -> bool {
        self.at == self.bytes.len()
    }

    fn take(&mut self, count: usize) -> Result<&'a [u8], ReadError> {
        let end = self.at.checked_add(count).ok_or_else(malformed)?;
        let taken = self.bytes.get(self.at..end).ok_or_else(malformed)?;
        self.at = end;
        Ok(taken)
    }

    fn peek_byte(&self) -> Result<u8, ReadError> {
        self.bytes.get(self.at).copied().ok_or_else(malformed)
    }

    fn head(&mut self) -> Result<Head, ReadError> {
        let first = self.take(1)?[0];
        let (major, info) = (first >> 5, first & 0x1f);
        let argument = match info {
            0..=23 => Some(u64::from(info)),
            24 => Some(u64::from(self.take(1)?[0])),
            25 => Some(u64::from(u16::from_be_bytes(self.array()?))),
            26 => Some(u64::from(u32::from_be_bytes(self.array()?))),
            27 => Some(u64::from_be_bytes(self.array()?)),
            INDEFINITE if matches!(major, ARRAY | MAP) => None,
            _ => return Err(malformed()),
        };
        Ok(Head {
            major,
            info,
            argument,
        })
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], ReadError> {
        self.take(N)?.try_into().map_err(|_| malformed())
    }

    /// The head of the next item, leaving it unread.
    fn peek(&mut self) -> Result<Head, ReadError> {
        let at = self.at;
        let head = self.head();
        self.at = at;
        head
    }

    /// The content of a byte or text string whose head was read.
    fn string(&mut self, head: Head) -> Result<&'a [u8], ReadError> {
        let length = head.argument.ok_or_else(malformed)?;
        self.take(usize::try_from(length).map_err(|_| malformed())?)
    }

    fn text<V: Visitor<'static>>(&mut self, head: Head, visitor: V) -> Result<V::Value, ReadError> {
        let text = std::str::from_utf8(self.string(head)?).map_err(|_| malformed())?;
        match self.literals.binary_search(&text) {
            Ok(index) => visitor.visit_borrowed_str(self.literals[index]),
            Err(_) => visitor.visit_str(text),
        }
    }

    /// Runs `read` one level deeper, refusing past [`MAX_DEPTH`].
    fn nested<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, ReadError>,
    ) -> Result<T, ReadError> {
        self.depth = self.depth.checked_sub(1).ok_or_else(malformed)?;
        let read = read(self);
        self.depth += 1;
        read
    }

    /// Whether an indefinite list or map ends here (and steps over its end if so).
    fn at_break(&mut self) -> Result<bool, ReadError> {
        let ends = self.peek_byte()? == BREAK;
        if ends {
            self.at += 1;
        }
        Ok(ends)
    }

    fn float<V: Visitor<'static>>(head: Head, visitor: V) -> Result<V::Value, ReadError> {
        let bits = head.argument.ok_or_else(malformed)?;
        let float = match head.info {
            25 => half_to_f64(bits as u16),
            26 => f64::from(f32::from_bits(bits as u32)),
            _ => f64::from_bits(bits),
        };
        visitor.visit_f64(float)
    }

    /// A bignum's value, from the byte string after its tag.
    fn big(&mut self) -> Result<u128, ReadError> {
        let head = self.head()?;
        if head.major != BYTES {
            return Err(de::Error::custom("malformed big integer"));
        }
        let bytes = self.string(head)?;
        if bytes.len() > 16 {
            return Err(de::Error::custom("malformed big integer"));
        }
        Ok(bytes
            .iter()
            .fold(0u128, |value, byte| (value << 8) | u128::from(*byte)))
    }

    /// Steps over one item, whatever it holds.
    fn skip(&mut self) -> Result<(), ReadError> {
        let head = self.head()?;
        match (head.major, head.argument) {
            (BYTES | TEXT, _) => self.string(head).map(drop),
            (ARRAY | MAP, length) => {
                let per_entry = if head.major == MAP { 2 } else { 1 };
                self.nested(|reader| match length {
                    Some(length) => {
                        for _ in 0..length.saturating_mul(per_entry) {
                            reader.skip()?;
                        }
                        Ok(())
                    }
                    None => {
                        while !reader.at_break()? {
                            for _ in 0..per_entry {
                                reader.skip()?;
                            }
                        }
                        Ok(())
                    }
                })
            }
            (TAG, _) => self.nested(Self::skip),
            _ => Ok(()),
        }
    }
}

/// An IEEE 754 half-precision float's value (ciborium writes a float in the shortest form
/// that keeps it exactly).
fn half_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 == 0 { 1.0 } else { -1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let fraction = f64::from(bits & 0x03ff);
    sign * match exponent {
        0 => fraction * 2f64.powi(-24),
        0x1f if fraction == 0.0 => f64::INFINITY,
        0x1f => f64::NAN,
        _ => (1.0 + fraction / 1024.0) * 2f64.powi(exponent - 15),
    }
}

impl de::Deserializer<'static> for &mut Reader<'_> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, ReadError> {
        let head = self.head()?;
        match (head.major, head.argument) {
            (UNSIGNED, Some(value)) => visitor.visit_u64(value),
            (NEGATIVE, Some(value)) => match i64::try_from(value) {
                Ok(value) => visitor.visit_i64(-1 - value),
                Err(_) => visitor.visit_i128(-1 - i128::from(value)),
            },
            (BYTES, _) => visitor.visit_bytes(self.string(head)?),
            (TEXT, _) => self.text(head, visitor),
            (ARRAY, length) => self.nested(|reader| {
                let mut items = Elements { reader, length };
                let value = visitor.visit_seq(&mut items)?;
                items.finish("list has more elements")?;
                Ok(value)
            }),
            (MAP, length) => self.nested(|reader| {
                let mut entries = Elements { reader, length };
                let value = visitor.visit_map(&mut entries)?;
                entries.finish("map has more entries")?;
                Ok(value)
            }),
            (TAG, Some(SOME)) => self.nested(|reader| visitor.visit_some(reader)),
            (TAG, Some(BIGPOS)) => visitor.visit_u128(self.big()?),
            (TAG, Some(BIGNEG)) => {
                let value = i128::try_from(self.big()?)
                    .map_err(|_| de::Error::custom("malformed big integer"))?;
                visitor.visit_i128(-1 - value)
            }
            // Another tag: its content, as ciborium reads it.
            (TAG, _) => self.nested(|reader| reader.deserialize_any(visitor)),
            (SIMPLE, _) => match head.info {
                20 => visitor.visit_bool(false),
                21 => visitor.visit_bool(true),
                22 | 23 => visitor.visit_none(),
                25..=27 => Reader::float(head, visitor),
                _ => Err(de::Error::custom("unknown CBOR item")),
            },
            _ => Err(malformed()),
        }
    }

    fn deserialize_option<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, ReadError> {
        let head = self.peek()?;
        match (head.major, head.info) {
            (SIMPLE, 22) => {
                self.head()?;
                visitor.visit_none()
            }
            (TAG, _) if head.argument == Some(SOME) => {
                self.head()?;
                self.nested(|reader| visitor.visit_some(reader))
            }
            // Written before `Some` was marked.
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, ReadError> {
        let head = self.peek()?;
        if (head.major, head.info) == (SIMPLE, 22) {
            self.head()?;
            return visitor.visit_unit();
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'static>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'static>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'static>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        let head = self.peek()?;
        match (head.major, head.argument) {
            (TEXT, _) => visitor.visit_enum(Variant {
                reader: self,
                content: false,
            }),
            (MAP, Some(1)) => {
                self.head()?;
                self.nested(|reader| {
                    visitor.visit_enum(Variant {
                        reader,
                        content: true,
                    })
                })
            }
            _ => Err(de::Error::custom("expected an enum")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'static>>(
        self,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        self.skip()?;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'static>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        seq tuple tuple_struct map struct identifier
    }
}

/// The items of a list or the entries of a map; `length` is `None` for an indefinite one.
struct Elements<'r, 'a> {
    reader: &'r mut Reader<'a>,
    length: Option<u64>,
}

impl Elements<'_, '_> {
    /// Whether another item (or entry) follows, counting it off.
    fn more(&mut self) -> Result<bool, ReadError> {
        match &mut self.length {
            Some(0) => Ok(false),
            Some(left) => {
                *left -= 1;
                Ok(true)
            }
            None if self.reader.at_break()? => {
                self.length = Some(0);
                Ok(false)
            }
            None => Ok(true),
        }
    }

    /// Refuses a list or map its type did not read to the end (`what` says which).
    fn finish(&mut self, what: &str) -> Result<(), ReadError> {
        let done = match self.length {
            Some(left) => left == 0,
            None => self.reader.at_break()?,
        };
        if done {
            Ok(())
        } else {
            Err(de::Error::custom(format_args!("the {what} than its type")))
        }
    }

    fn left(&self) -> Option<usize> {
        self.length.and_then(|left| usize::try_from(left).ok())
    }
}

impl de::SeqAccess<'static> for Elements<'_, '_> {
    type Error = ReadError;

    fn next_element_seed<T: de::DeserializeSeed<'static>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ReadError> {
        if !self.more()? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        self.left()
    }
}

impl de::MapAccess<'static> for Elements<'_, '_> {
    type Error = ReadError;

    fn next_key_seed<K: de::DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ReadError> {
        if !self.more()? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'static>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, ReadError> {
        seed.deserialize(&mut *self.reader)
    }

    fn size_hint(&self) -> Option<usize> {
        self.left()
    }
}

/// An enum as ciborium writes it: a unit variant by its name, any other as a one-entry map
/// from its name to its content (`content`: the map's head was read).
struct Variant<'r, 'a> {
    reader: &'r mut Reader<'a>,
    content: bool,
}

impl<'r, 'a> de::EnumAccess<'static> for Variant<'r, 'a> {
    type Error = ReadError;
    type Variant = Self;

    fn variant_seed<V: de::DeserializeSeed<'static>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self), ReadError> {
        let head = self.reader.peek()?;
        let name = if head.major == TEXT {
            let head = self.reader.head()?;
            let text = std::str::from_utf8(self.reader.string(head)?).map_err(|_| malformed())?;
            seed.deserialize(text.into_deserializer())?
        } else {
            seed.deserialize(&mut *self.reader)?
        };
        Ok((name, self))
    }
}

impl de::VariantAccess<'static> for Variant<'_, '_> {
    type Error = ReadError;

    fn unit_variant(self) -> Result<(), ReadError> {
        if !self.content {
            return Ok(());
        }
        match self.reader.head()? {
            Head {
                major: SIMPLE,
                info: 22,
                ..
            } => Ok(()),
            _ => Err(de::Error::custom("expected a unit variant")),
        }
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'static>>(
        self,
        seed: T,
    ) -> Result<T::Value, ReadError> {
        match self.content {
            true => seed.deserialize(self.reader),
            false => Err(de::Error::custom("expected a newtype variant")),
        }
    }

    fn tuple_variant<V: Visitor<'static>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        match self.content {
            true => de::Deserializer::deserialize_any(self.reader, visitor),
            false => Err(de::Error::custom("expected a tuple variant")),
        }
    }

    fn struct_variant<V: Visitor<'static>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        self.tuple_variant(0, visitor)
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    fn read<T: Deserialize<'static>>(
        bytes: &[u8],
        literals: &'static [&'static str],
    ) -> Result<T, ReadError> {
        let mut reader = reader(bytes, literals);
        let value = T::deserialize(&mut reader)?;
        match reader.is_at_end() {
            true => Ok(value),
            false => Err(de::Error::custom("trailing bytes")),
        }
    }

    fn round_trip<T: Serialize + serde::de::DeserializeOwned>(value: &T) -> (T, usize) {
        let bytes = encode(value).unwrap();
        (read(&bytes, &[]).unwrap(), bytes.len())
    }

    #[test]
    fn a_some_costs_one_byte_and_comes_back() {
        let (value, size) = round_trip(&Some(Some(())));
        assert_eq!((value, size), (Some(Some(())), 3));
        assert_eq!(round_trip(&None::<u8>), (None, 1));
        assert_eq!(round_trip(&Some(5u8)), (Some(5), 2));
    }

    #[test]
    fn values_written_before_the_mark_still_read() {
        let mut bytes = Vec::new();
        ciborium::into_writer(&Some(vec![Some(3u8), None]), &mut bytes).unwrap();
        let value: Option<Vec<Option<u8>>> = read(&bytes, &[]).unwrap();
        assert_eq!(value, Some(vec![Some(3), None]));
    }

    #[test]
    fn big_integers_and_enums_read_as_ciborium_reads_them() {
        #[derive(serde::Serialize, Deserialize, Debug, PartialEq)]
        enum Shape {
            Dot,
            Line(Option<()>),
            Pair(u8, Option<u8>),
            Named { at: Option<Option<u8>> },
        }
        for value in [i128::MIN, i128::MAX, -1, 0, i128::from(u64::MAX) + 1] {
            assert_eq!(round_trip(&value).0, value);
        }
        assert_eq!(round_trip(&u128::MAX).0, u128::MAX);
        let shapes = vec![
            Shape::Dot,
            Shape::Line(Some(())),
            Shape::Pair(1, None),
            Shape::Named { at: Some(None) },
        ];
        assert_eq!(round_trip(&shapes).0, shapes);
    }

    #[test]
    fn a_literal_of_the_body_comes_back_as_a_static_str() {
        let bytes = encode(&vec!["a", "b"]).unwrap();
        let words: Vec<&'static str> = read(&bytes, &["a", "b", "c"]).unwrap();
        assert_eq!(words, ["a", "b"]);
        assert!(read::<Vec<&'static str>>(&bytes, &["a"]).is_err());
        let owned: Vec<String> = read(&bytes, &[]).unwrap();
        assert_eq!(owned, ["a", "b"]);
    }

    #[test]
    fn floats_come_back_in_every_width_ciborium_writes() {
        // 1.5 fits a half, 3.0e38 a single, 1e300 only a double.
        for value in [
            0.0,
            -0.0,
            1.5,
            -65504.0,
            6.0e-8,
            3.0e38,
            1e300,
            f64::INFINITY,
        ] {
            let (back, _) = round_trip(&value);
            assert_eq!(back.to_bits(), value.to_bits(), "{value}");
        }
        assert!(round_trip(&f64::NAN).0.is_nan());
        assert_eq!(round_trip(&1.5f32).0, 1.5f32);
    }

    #[test]
    fn lists_and_maps_of_unknown_length_come_back() {
        /// A list serialized without its length, which ciborium writes as an indefinite one.
        struct Unsized(Vec<Option<u8>>);
        impl Serialize for Unsized {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut items = self.0.iter();
                serializer.collect_seq(std::iter::from_fn(|| items.next()))
            }
        }
        let bytes = encode(&Unsized(vec![Some(1), None, Some(3)])).unwrap();
        assert_eq!(bytes[0], 0x9f, "an indefinite list");
        let back: Vec<Option<u8>> = read(&bytes, &[]).unwrap();
        assert_eq!(back, [Some(1), None, Some(3)]);
        assert!(read::<(Option<u8>, Option<u8>)>(&bytes, &[]).is_err());
    }

    #[test]
    fn json_values_and_maps_come_back() {
        let value = serde_json::json!({
            "name": "Ada", "tags": ["a", null, 1.5, -7, 18446744073709551615u64],
            "nested": {"ok": true, "none": null}
        });
        assert_eq!(round_trip(&value).0, value);
        let map: std::collections::BTreeMap<u32, Option<String>> =
            [(1, Some("x".to_owned())), (2, None)].into();
        assert_eq!(round_trip(&map).0, map);
        assert_eq!(round_trip(&('é', vec![0u8, 255])).0, ('é', vec![0, 255]));
    }

    #[test]
    fn a_field_its_type_ignores_is_stepped_over() {
        #[derive(serde::Serialize)]
        struct Wide {
            a: u8,
            extra: Vec<std::collections::BTreeMap<String, Option<i64>>>,
            b: String,
        }
        #[derive(Deserialize, Debug, PartialEq)]
        struct Narrow {
            a: u8,
            b: String,
        }
        let wide = Wide {
            a: 1,
            extra: vec![[("k".to_owned(), Some(-5))].into()],
            b: "end".to_owned(),
        };
        let bytes = encode(&wide).unwrap();
        let narrow: Narrow = read(&bytes, &[]).unwrap();
        assert_eq!(
            narrow,
            Narrow {
                a: 1,
                b: "end".to_owned()
            }
        );
    }

    #[test]
    fn cut_or_trailing_bytes_are_refused() {
        let bytes = encode(&("abc", Some(Some(1u8)))).unwrap();
        for cut in 0..bytes.len() {
            assert!(read::<(String, Option<Option<u8>>)>(&bytes[..cut], &[]).is_err());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read::<(String, Option<Option<u8>>)>(&longer, &[]).is_err());
    }

    #[test]
    fn marks_come_off_for_display() {
        let bytes = encode(&Some(Some(1u8))).unwrap();
        let decoded: Cbor = ciborium::from_reader(bytes.as_slice()).unwrap();
        assert_eq!(unmarked(decoded), Cbor::Integer(1u8.into()));
    }
}
