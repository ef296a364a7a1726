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

/// A deserializer of a decoded kept value, reading marked `Some`s back. A string equal to one
/// of `literals` (the tool body's string literals, sorted) is lent out as that literal, so a
/// kept `&'static str` comes back.
pub(crate) fn reader<'a>(value: &'a Cbor, literals: &'static [&'static str]) -> Reader<'a> {
    Reader { value, literals }
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

/// Deserializes a decoded kept value as ciborium would, except that a marked `Some` is one.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    value: &'a Cbor,
    literals: &'static [&'static str],
}

impl<'a> Reader<'a> {
    fn at(self, value: &'a Cbor) -> Self {
        Self { value, ..self }
    }

    fn text<V: Visitor<'static>>(self, text: &str, visitor: V) -> Result<V::Value, ReadError> {
        match self.literals.binary_search(&text) {
            Ok(index) => visitor.visit_borrowed_str(self.literals[index]),
            Err(_) => visitor.visit_str(text),
        }
    }
}

/// The big integer of a bignum tag's bytes.
fn big(bytes: &[u8]) -> Option<u128> {
    (bytes.len() <= 16).then(|| {
        bytes
            .iter()
            .fold(0u128, |value, byte| (value << 8) | u128::from(*byte))
    })
}

impl de::Deserializer<'static> for Reader<'_> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            Cbor::Integer(integer) => {
                let integer = i128::from(*integer);
                match (u64::try_from(integer), i64::try_from(integer)) {
                    (Ok(unsigned), _) => visitor.visit_u64(unsigned),
                    (_, Ok(signed)) => visitor.visit_i64(signed),
                    _ => visitor.visit_i128(integer),
                }
            }
            Cbor::Bytes(bytes) => visitor.visit_bytes(bytes),
            Cbor::Float(float) => visitor.visit_f64(*float),
            Cbor::Text(text) => self.text(text, visitor),
            Cbor::Bool(value) => visitor.visit_bool(*value),
            Cbor::Null => visitor.visit_none(),
            Cbor::Tag(SOME, inner) => visitor.visit_some(self.at(inner)),
            Cbor::Tag(BIGPOS, inner) => match inner.as_bytes().and_then(|bytes| big(bytes)) {
                Some(value) => visitor.visit_u128(value),
                None => Err(de::Error::custom("malformed big integer")),
            },
            Cbor::Tag(BIGNEG, inner) => {
                match inner
                    .as_bytes()
                    .and_then(|bytes| big(bytes))
                    .and_then(|value| i128::try_from(value).ok())
                {
                    Some(value) => visitor.visit_i128(-1 - value),
                    None => Err(de::Error::custom("malformed big integer")),
                }
            }
            Cbor::Tag(_, inner) => self.at(inner).deserialize_any(visitor),
            Cbor::Array(items) => {
                let mut access = Items {
                    items: items.iter(),
                    reader: self,
                };
                let value = visitor.visit_seq(&mut access)?;
                match access.items.len() {
                    0 => Ok(value),
                    _ => Err(de::Error::invalid_length(items.len(), &"fewer elements")),
                }
            }
            Cbor::Map(entries) => {
                let mut access = Entries {
                    entries: entries.iter(),
                    value: None,
                    reader: self,
                };
                let value = visitor.visit_map(&mut access)?;
                match access.entries.len() {
                    0 => Ok(value),
                    _ => Err(de::Error::invalid_length(entries.len(), &"fewer entries")),
                }
            }
            _ => Err(de::Error::custom("unknown CBOR item")),
        }
    }

    fn deserialize_option<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            Cbor::Null => visitor.visit_none(),
            Cbor::Tag(SOME, inner) => visitor.visit_some(self.at(inner)),
            // Written before `Some` was marked.
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            Cbor::Null => visitor.visit_unit(),
            _ => self.deserialize_any(visitor),
        }
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
        match self.value {
            Cbor::Text(_) => visitor.visit_enum(Variant {
                name: self,
                value: None,
            }),
            Cbor::Map(entries) if entries.len() == 1 => visitor.visit_enum(Variant {
                name: self.at(&entries[0].0),
                value: Some(self.at(&entries[0].1)),
            }),
            _ => Err(de::Error::custom("expected an enum")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'static>>(
        self,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
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

struct Items<'a> {
    items: std::slice::Iter<'a, Cbor>,
    reader: Reader<'a>,
}

impl de::SeqAccess<'static> for Items<'_> {
    type Error = ReadError;

    fn next_element_seed<T: de::DeserializeSeed<'static>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ReadError> {
        self.items
            .next()
            .map(|item| seed.deserialize(self.reader.at(item)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Entries<'a> {
    entries: std::slice::Iter<'a, (Cbor, Cbor)>,
    value: Option<&'a Cbor>,
    reader: Reader<'a>,
}

impl de::MapAccess<'static> for Entries<'_> {
    type Error = ReadError;

    fn next_key_seed<K: de::DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ReadError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(self.reader.at(key)).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'static>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, ReadError> {
        let value = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("a map value without its key"))?;
        seed.deserialize(self.reader.at(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An enum as ciborium writes it: a unit variant by its name, any other as a one-entry map
/// from its name to its content.
struct Variant<'a> {
    name: Reader<'a>,
    value: Option<Reader<'a>>,
}

impl<'a> de::EnumAccess<'static> for Variant<'a> {
    type Error = ReadError;
    type Variant = Content<'a>;

    fn variant_seed<V: de::DeserializeSeed<'static>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), ReadError> {
        let name = match self.name.value {
            Cbor::Text(text) => seed.deserialize(text.as_str().into_deserializer())?,
            _ => seed.deserialize(self.name)?,
        };
        Ok((name, Content(self.value)))
    }
}

/// A variant's content, none for a unit variant.
struct Content<'a>(Option<Reader<'a>>);

impl de::VariantAccess<'static> for Content<'_> {
    type Error = ReadError;

    fn unit_variant(self) -> Result<(), ReadError> {
        match self.0 {
            None => Ok(()),
            Some(reader) if matches!(reader.value, Cbor::Null) => Ok(()),
            Some(_) => Err(de::Error::custom("expected a unit variant")),
        }
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'static>>(
        self,
        seed: T,
    ) -> Result<T::Value, ReadError> {
        match self.0 {
            Some(value) => seed.deserialize(value),
            None => Err(de::Error::custom("expected a newtype variant")),
        }
    }

    fn tuple_variant<V: Visitor<'static>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        match self.0 {
            Some(value) => de::Deserializer::deserialize_any(value, visitor),
            None => Err(de::Error::custom("expected a tuple variant")),
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

    fn round_trip<T: Serialize + serde::de::DeserializeOwned>(value: &T) -> (T, usize) {
        let bytes = encode(value).unwrap();
        let decoded: Cbor = ciborium::from_reader(bytes.as_slice()).unwrap();
        (T::deserialize(reader(&decoded, &[])).unwrap(), bytes.len())
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
        let decoded: Cbor = ciborium::from_reader(bytes.as_slice()).unwrap();
        let value = Option::<Vec<Option<u8>>>::deserialize(reader(&decoded, &[])).unwrap();
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
        let decoded: Cbor = ciborium::from_reader(bytes.as_slice()).unwrap();
        let words = Vec::<&'static str>::deserialize(reader(&decoded, &["a", "b", "c"]));
        assert_eq!(words.unwrap(), ["a", "b"]);
        let unknown = Vec::<&'static str>::deserialize(reader(&decoded, &["a"]));
        assert!(unknown.is_err());
        let owned = Vec::<String>::deserialize(reader(&decoded, &[])).unwrap();
        assert_eq!(owned, ["a", "b"]);
    }

    #[test]
    fn marks_come_off_for_display() {
        let bytes = encode(&Some(Some(1u8))).unwrap();
        let decoded: Cbor = ciborium::from_reader(bytes.as_slice()).unwrap();
        assert_eq!(unmarked(decoded), Cbor::Integer(1u8.into()));
    }
}
