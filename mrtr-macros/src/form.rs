//! `#[derive(Form)]`: a struct becomes a form-mode elicitation with the restricted, flat schema
//! of MCP 2026-07-28. Parse the fields and their `#[form(..)]` arguments, validate them against
//! what that schema can express (collecting every error), then expand.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Data, DeriveInput, Expr, Fields, GenericArgument, Ident, Lit, Path, PathArguments, Type, UnOp,
};

use crate::attr::{self, Entry};
use crate::docs::doc_text;
use crate::errors::Errors;

const FIELD_ARGUMENTS: &[&str] = &[
    "rename",
    "title",
    "description",
    "default",
    "min_length",
    "max_length",
    "format",
    "one_of",
    "minimum",
    "maximum",
    "min_items",
    "max_items",
];
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// What the schema can say about a field, decided from its type's syntax. Types the derive
/// cannot name (aliases, enums) are taken as `Choice` and checked by the `FormField` trait.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Text,
    Bool,
    Integer,
    Number,
    Choice,
    MultiSelect,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Text => "a String field",
            Kind::Bool => "a bool field",
            Kind::Integer => "an integer field",
            Kind::Number => "a float field",
            Kind::Choice => "a single-select (Choice) field",
            Kind::MultiSelect => "a multi-select (Vec) field",
        }
    }

    /// The `#[form(..)]` arguments that make sense for this kind, besides the universal ones.
    fn allows(self, key: &str) -> bool {
        match key {
            "rename" | "title" | "description" | "default" => true,
            "min_length" | "max_length" | "format" | "one_of" => self == Kind::Text,
            "minimum" | "maximum" => matches!(self, Kind::Integer | Kind::Number),
            "min_items" | "max_items" => self == Kind::MultiSelect,
            _ => false,
        }
    }
}

/// A field after validation: everything expansion needs.
struct Field<'a> {
    ident: &'a Ident,
    ty: &'a Type,
    wire_name: String,
    /// Extra schema members (`"minLength"`, value expression), in a stable order.
    schema: Vec<(&'static str, TokenStream)>,
}

pub(crate) fn derive(input: DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let container = attr::entries(&input.attrs, "form", &["crate"], &mut errors);
    let krate = attr::crate_path(&container, &mut errors);
    let fields = parse_fields(&input, &krate, &mut errors);
    let expanded = expand(&input, &krate, fields.as_deref());
    let compile_errors = errors.into_compile_errors();
    quote! { #expanded #compile_errors }
}

fn parse_fields<'a>(
    input: &'a DeriveInput,
    krate: &Path,
    errors: &mut Errors,
) -> Option<Vec<Field<'a>>> {
    // Lifetimes only come with references, which are reported at the field.
    if input.generics.type_params().next().is_some()
        || input.generics.const_params().next().is_some()
    {
        errors.spanned(
            &input.generics,
            "a form cannot be generic: its schema is fixed at compile time",
        );
    }
    let named = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => named,
            _ => {
                errors.spanned(
                    &input.ident,
                    "a form needs named fields: each field is one question of the form",
                );
                return None;
            }
        },
        Data::Enum(_) => {
            errors.spanned(&input.ident, "`Form` is derived on structs; for an enum of options derive `mrtr::Choice` and use it as a field");
            return None;
        }
        Data::Union(_) => {
            errors.spanned(&input.ident, "`Form` cannot be derived on a union");
            return None;
        }
    };
    let mut fields = Vec::new();
    for field in &named.named {
        let ident = field.ident.as_ref().expect("named field");
        let entries = attr::entries(&field.attrs, "form", FIELD_ARGUMENTS, errors);
        let Some(kind) = classify(&field.ty, errors) else {
            continue;
        };
        let wire_name = entries
            .iter()
            .find(|entry| entry.key == "rename")
            .and_then(|entry| attr::string(entry, errors))
            .map_or_else(|| ident.to_string(), |name| name.value());
        let schema = field_schema(kind, &entries, doc_text(&field.attrs), krate, errors);
        if fields
            .iter()
            .any(|seen: &Field<'_>| seen.wire_name == wire_name)
        {
            errors.spanned(
                ident,
                format!("two fields are named `{wire_name}` in the form; rename one"),
            );
        }
        fields.push(Field {
            ident,
            ty: &field.ty,
            wire_name,
            schema,
        });
    }
    errors.is_empty().then_some(fields)
}

/// Decides the field's kind from its type; `Option<T>` is the kind of `T` (not required).
fn classify(ty: &Type, errors: &mut Errors) -> Option<Kind> {
    let flat_hint = "form fields must be String, bool, an integer, a float, a `#[derive(mrtr::Choice)]` enum, \
                     `Vec` of such an enum, or `Option` of one of these";
    let Type::Path(path) = ty else {
        let hint = if matches!(ty, Type::Reference(_)) {
            "form fields own their data: use `String`, not a reference"
        } else {
            flat_hint
        };
        errors.spanned(ty, hint);
        return None;
    };
    let segment = path.path.segments.last()?;
    let name = segment.ident.to_string();
    let single_argument = || match &segment.arguments {
        PathArguments::AngleBracketed(arguments) if arguments.args.len() == 1 => {
            match &arguments.args[0] {
                GenericArgument::Type(inner) => Some(inner),
                _ => None,
            }
        }
        _ => None,
    };
    let kind = match name.as_str() {
        "String" => Kind::Text,
        "bool" => Kind::Bool,
        "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize" => {
            Kind::Integer
        }
        "f32" | "f64" => Kind::Number,
        "Option" => {
            let inner = single_argument()?;
            if let Type::Path(inner_path) = inner
                && inner_path
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "Option")
            {
                errors.spanned(
                    inner,
                    "a form field is optional once: use `Option<T>`, not `Option<Option<T>>`",
                );
                return None;
            }
            return classify(inner, errors);
        }
        "Vec" => match single_argument() {
            Some(Type::Path(_)) => Kind::MultiSelect,
            _ => {
                errors.spanned(
                    ty,
                    "a multi-select is `Vec<E>` where `E` derives `mrtr::Choice`",
                );
                return None;
            }
        },
        "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" | "Box" | "Rc" | "Arc" | "str" => {
            errors.spanned(ty, flat_hint);
            return None;
        }
        _ if !segment.arguments.is_none() => {
            errors.spanned(ty, flat_hint);
            return None;
        }
        _ => Kind::Choice,
    };
    Some(kind)
}

/// Validates the field's arguments for its kind and builds its extra schema members.
fn field_schema(
    kind: Kind,
    entries: &[Entry],
    doc: Option<String>,
    krate: &Path,
    errors: &mut Errors,
) -> Vec<(&'static str, TokenStream)> {
    let value = |expr: TokenStream| quote!(#krate::__private::Value::from(#expr));
    let mut schema = Vec::new();
    for entry in entries
        .iter()
        .filter(|entry| !kind.allows(&entry.key.to_string()))
    {
        errors.spanned(
            &entry.key,
            format!("`{}` does not apply to {}", entry.key, kind.describe()),
        );
    }
    let get = |key: &str| {
        entries
            .iter()
            .find(|entry| entry.key == key && kind.allows(key))
    };

    if let Some(title) = get("title").and_then(|entry| attr::string(entry, errors)) {
        schema.push(("title", value(quote!(#title))));
    }
    let description = get("description")
        .and_then(|entry| attr::string(entry, errors))
        .map(|text| text.value())
        .or(doc);
    if let Some(description) = description {
        schema.push(("description", value(quote!(#description))));
    }

    let bounds = |low: &str, high: &str, errors: &mut Errors| -> (Option<Number>, Option<Number>) {
        let low = get(low).and_then(|entry| number(entry, kind, errors));
        let high = get(high).and_then(|entry| number(entry, kind, errors));
        if let (Some(low_value), Some(high_value)) = (&low, &high)
            && low_value.as_f64() > high_value.as_f64()
        {
            errors.push(syn::Error::new(
                high_value.span,
                format!(
                    "this upper bound is below the lower bound {}",
                    low_value.text
                ),
            ));
        }
        (low, high)
    };
    let (min_length, max_length) = bounds("min_length", "max_length", errors);
    let (minimum, maximum) = bounds("minimum", "maximum", errors);
    let (min_items, max_items) = bounds("min_items", "max_items", errors);
    for (wire, bound) in [
        ("minLength", &min_length),
        ("maxLength", &max_length),
        ("minimum", &minimum),
        ("maximum", &maximum),
        ("minItems", &min_items),
        ("maxItems", &max_items),
    ] {
        if let Some(bound) = bound {
            if matches!(wire, "minLength" | "maxLength" | "minItems" | "maxItems")
                && bound.as_f64() < 0.0
            {
                errors.push(syn::Error::new(
                    bound.span,
                    "a length or count cannot be negative",
                ));
            }
            let literal = &bound.literal;
            schema.push((wire, value(quote!(#literal))));
        }
    }

    if let Some(entry) = get("format")
        && let Some(format) = attr::string(entry, errors)
    {
        if FORMATS.contains(&format.value().as_str()) {
            schema.push(("format", value(quote!(#format))));
        } else {
            errors.spanned(
                &format,
                format!(
                    "unsupported format {:?}; MCP forms allow {}",
                    format.value(),
                    FORMATS.join(", ")
                ),
            );
        }
    }

    let one_of = get("one_of").and_then(|entry| strings(entry, errors));
    if let (Some(options), Some(entry)) = (&one_of, get("one_of")) {
        for conflicting in ["min_length", "max_length", "format"] {
            if let Some(other) = get(conflicting) {
                errors.spanned(&other.key, format!("`{conflicting}` cannot be combined with `one_of`: the options are the only valid values"));
            }
        }
        if options.is_empty() {
            errors.push(syn::Error::new(
                attr::span(entry),
                "`one_of` needs at least one option",
            ));
        }
        let values: Vec<String> = options.iter().map(syn::LitStr::value).collect();
        for (index, option) in options.iter().enumerate() {
            if values[..index].contains(&option.value()) {
                errors.spanned(option, "duplicate option");
            }
        }
        schema.push(("enum", value(quote!(::std::vec![#(#options),*]))));
    }

    if let Some(entry) = get("default")
        && let Some(default) = default_value(
            kind,
            entry,
            one_of.as_deref(),
            (&minimum, &maximum),
            (&min_length, &max_length),
            errors,
        )
    {
        schema.push(("default", value(default)));
    }
    schema
}

/// A numeric literal (possibly negative) with its text and span.
struct Number {
    literal: Literal,
    value: f64,
    text: String,
    span: Span,
}

impl Number {
    fn as_f64(&self) -> f64 {
        self.value
    }
}

fn number(entry: &Entry, kind: Kind, errors: &mut Errors) -> Option<Number> {
    let Some(expr) = &entry.value else {
        errors.spanned(&entry.key, format!("`{}` needs a number", entry.key));
        return None;
    };
    let (negative, lit) = match expr {
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => match &*unary.expr {
            Expr::Lit(lit) => (true, &lit.lit),
            _ => return bad_number(expr, entry, errors),
        },
        Expr::Lit(lit) => (false, &lit.lit),
        _ => return bad_number(expr, entry, errors),
    };
    let sign = if negative { -1.0 } else { 1.0 };
    let integers_only = kind != Kind::Number;
    match lit {
        Lit::Int(int) => {
            let magnitude: i64 = int.base10_parse().ok()?;
            let value = if negative { -magnitude } else { magnitude };
            Some(Number {
                literal: Literal::i64_suffixed(value),
                value: value as f64,
                text: value.to_string(),
                span: expr.span(),
            })
        }
        Lit::Float(float) if !integers_only => {
            let value = sign * float.base10_parse::<f64>().ok()?;
            Some(Number {
                literal: Literal::f64_suffixed(value),
                value,
                text: value.to_string(),
                span: expr.span(),
            })
        }
        Lit::Float(_) => {
            errors.spanned(expr, format!("`{}` takes a whole number here", entry.key));
            None
        }
        _ => bad_number(expr, entry, errors),
    }
}

fn bad_number(expr: &Expr, entry: &Entry, errors: &mut Errors) -> Option<Number> {
    errors.spanned(expr, format!("`{}` takes a number literal", entry.key));
    None
}

fn strings(entry: &Entry, errors: &mut Errors) -> Option<Vec<syn::LitStr>> {
    let Some(Expr::Array(array)) = &entry.value else {
        errors.spanned(
            &entry.key,
            format!(
                "`{}` takes a list of strings, e.g. `{} = [\"a\", \"b\"]`",
                entry.key, entry.key
            ),
        );
        return None;
    };
    let mut found = Vec::new();
    for element in &array.elems {
        match element {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Str(text) => found.push(text.clone()),
                other => errors.spanned(other, "options are string literals"),
            },
            other => errors.spanned(other, "options are string literals"),
        }
    }
    Some(found)
}

/// Checks a `default` against the field's kind and bounds; returns the value expression.
fn default_value(
    kind: Kind,
    entry: &Entry,
    one_of: Option<&[syn::LitStr]>,
    (minimum, maximum): (&Option<Number>, &Option<Number>),
    (min_length, max_length): (&Option<Number>, &Option<Number>),
    errors: &mut Errors,
) -> Option<TokenStream> {
    match kind {
        Kind::Text | Kind::Choice => {
            let text = attr::string(entry, errors)?;
            let length = text.value().chars().count() as f64;
            if let Some(options) = one_of
                && !options.iter().any(|option| option.value() == text.value())
            {
                errors.spanned(&text, "the default must be one of the `one_of` options");
            }
            if min_length.as_ref().is_some_and(|min| length < min.as_f64())
                || max_length.as_ref().is_some_and(|max| length > max.as_f64())
            {
                errors.spanned(&text, "the default does not fit `min_length`/`max_length`");
            }
            Some(quote!(#text))
        }
        Kind::Bool => match &entry.value {
            Some(Expr::Lit(lit)) if matches!(lit.lit, Lit::Bool(_)) => Some(quote!(#lit)),
            _ => {
                errors.spanned(
                    &entry.key,
                    "the default of a bool field is `true` or `false`",
                );
                None
            }
        },
        Kind::Integer | Kind::Number => {
            let default = number(entry, kind, errors)?;
            if minimum
                .as_ref()
                .is_some_and(|min| default.as_f64() < min.as_f64())
                || maximum
                    .as_ref()
                    .is_some_and(|max| default.as_f64() > max.as_f64())
            {
                errors.push(syn::Error::new(
                    default.span,
                    "the default is outside `minimum`/`maximum`",
                ));
            }
            let literal = default.literal;
            Some(quote!(#literal))
        }
        Kind::MultiSelect => {
            let values = strings(entry, errors)?;
            Some(quote!(::std::vec![#(#values),*]))
        }
    }
}

fn expand(input: &DeriveInput, krate: &Path, fields: Option<&[Field<'_>]>) -> TokenStream {
    let private = quote!(#krate::__private);
    let ident = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    let Some(fields) = fields else {
        // Keep the rest of the crate compiling while the errors are fixed.
        return quote! {
            #[automatically_derived]
            impl #impl_generics #private::Form for #ident #type_generics #where_clause {
                fn requested_schema() -> #private::Value { ::core::unreachable!() }
                fn from_content(_: &#private::Map<::std::string::String, #private::Value>) -> ::core::result::Result<Self, ::std::string::String> {
                    ::core::unreachable!()
                }
            }
        };
    };
    let properties = fields.iter().map(|field| {
        let Field {
            ty,
            wire_name,
            schema,
            ..
        } = field;
        let members = schema.iter().map(
            |(key, value)| quote!(__schema.insert(::std::string::String::from(#key), #value);),
        );
        // The trait bound is spanned at the field's type, so a type that is not a form field is
        // reported there.
        let field_trait = quote_spanned!(ty.span()=> <#ty as #private::FormField>);
        quote! {
            let mut __schema = #field_trait::property_schema();
            #(#members)*
            __form.field(#wire_name, __schema, #field_trait::REQUIRED);
        }
    });
    let decoders = fields.iter().map(|field| {
        let Field {
            ident,
            ty,
            wire_name,
            ..
        } = field;
        // Same path and span as in the schema: an unsupported type is reported once.
        let field_trait = quote_spanned!(ty.span()=> <#ty as #private::FormField>);
        quote! {
            #ident: #field_trait::decode(__content.get(#wire_name))
                .map_err(|__error| ::std::format!("`{}`: {}", #wire_name, __error))?
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #private::Form for #ident #type_generics #where_clause {
            fn requested_schema() -> #private::Value {
                let mut __form = #private::FormSchema::default();
                #({ #properties })*
                __form.into_value()
            }

            fn from_content(__content: &#private::Map<::std::string::String, #private::Value>) -> ::core::result::Result<Self, ::std::string::String> {
                ::core::result::Result::Ok(Self { #(#decoders,)* })
            }
        }
    }
}
