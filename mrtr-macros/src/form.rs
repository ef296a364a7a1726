//! `#[derive(Form)]`: a struct becomes a form-mode elicitation with the restricted, flat schema
//! of MCP 2026-07-28. Parse the fields and their `#[form(..)]` arguments, validate them against
//! what that schema can express (collecting every error), then expand.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
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
    /// Compile-time checks that need the field's type (a default among a choice's options).
    checks: Vec<TokenStream>,
}

pub(crate) fn derive(input: DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let container = attr::entries(&input.attrs, "form", &["crate", "serde"], &mut errors);
    let krate = attr::crate_path(&container, &mut errors);
    let serde = attr::wants_serde(&container, &mut errors);
    let fields = parse_fields(&input, &krate, &mut errors);
    let mut expanded = expand(&input, &krate, fields.as_deref());
    // A generic form is an error already; impls for it would only add noise.
    if serde && input.generics.params.is_empty() {
        expanded.extend(serde_impls(&input, &krate, fields.as_deref()));
    }
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
        let mut checks = Vec::new();
        let context = FieldContext {
            kind,
            ty: &field.ty,
            krate,
        };
        let schema = field_schema(
            &context,
            &entries,
            doc_text(&field.attrs),
            &mut checks,
            errors,
        );
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
            checks,
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

/// What the arguments of one field are checked against.
struct FieldContext<'a> {
    kind: Kind,
    ty: &'a Type,
    krate: &'a Path,
}

/// `T` of `Option<T>`, else the type itself.
fn unwrap_option(ty: &Type) -> &Type {
    generic_argument(ty, "Option").unwrap_or(ty)
}

/// The single type argument of `ty` if its last segment is `name`.
fn generic_argument<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    if segment.ident != name {
        return None;
    }
    match &segment.arguments {
        PathArguments::AngleBracketed(arguments) if arguments.args.len() == 1 => {
            match &arguments.args[0] {
                GenericArgument::Type(inner) => Some(inner),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The value range of an integer field's type (`isize`/`usize` taken as 64-bit).
fn integer_range(ty: &Type) -> Option<(i128, i128)> {
    let Type::Path(path) = unwrap_option(ty) else {
        return None;
    };
    let range = match path.path.segments.last()?.ident.to_string().as_str() {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        _ => return None,
    };
    Some(range)
}

/// Validates the field's arguments for its kind and builds its extra schema members.
fn field_schema(
    context: &FieldContext<'_>,
    entries: &[Entry],
    doc: Option<String>,
    checks: &mut Vec<TokenStream>,
    errors: &mut Errors,
) -> Vec<(&'static str, TokenStream)> {
    let (kind, krate) = (context.kind, context.krate);
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
    if kind == Kind::Integer
        && let Some((low, high)) = integer_range(context.ty)
    {
        // A bound wider than the type is narrowed to it when the schema is built; a bound
        // that leaves no value of the type is refused.
        if let Some(minimum) = &minimum
            && minimum.integer > high
        {
            errors.push(syn::Error::new(
                minimum.span,
                format!(
                    "no value of this field's type is at least {}: its largest is {high}",
                    minimum.text
                ),
            ));
        }
        if let Some(maximum) = &maximum
            && maximum.integer < low
        {
            errors.push(syn::Error::new(
                maximum.span,
                format!(
                    "no value of this field's type is at most {}: its smallest is {low}",
                    maximum.text
                ),
            ));
        }
    }
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
        if let Some(range) = integer_range(context.ty)
            && kind == Kind::Integer
            && let Some(number) =
                get("default").and_then(|entry| number(entry, kind, &mut Errors::default()))
            && !(range.0..=range.1).contains(&number.integer)
        {
            errors.push(syn::Error::new(
                number.span,
                "the default does not fit the field's type",
            ));
        }
        checks.extend(choice_default_checks(context, entry));
        schema.push(("default", value(default)));
    }
    schema
}

/// A `default` of a single- or multi-select must be among the choice's options. The options
/// belong to another type, so this is checked by the compiler, at the default's span.
fn choice_default_checks(context: &FieldContext<'_>, entry: &Entry) -> Vec<TokenStream> {
    let krate = context.krate;
    let (choice, values): (&Type, Vec<syn::LitStr>) = match context.kind {
        Kind::Choice => {
            let Some(Expr::Lit(lit)) = &entry.value else {
                return Vec::new();
            };
            let Lit::Str(text) = &lit.lit else {
                return Vec::new();
            };
            (unwrap_option(context.ty), vec![text.clone()])
        }
        Kind::MultiSelect => {
            let Some(inner) = generic_argument(unwrap_option(context.ty), "Vec") else {
                return Vec::new();
            };
            let Some(Expr::Array(array)) = &entry.value else {
                return Vec::new();
            };
            let values = array
                .elems
                .iter()
                .filter_map(|element| match element {
                    Expr::Lit(lit) => match &lit.lit {
                        Lit::Str(text) => Some(text.clone()),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            (inner, values)
        }
        _ => return Vec::new(),
    };
    values
        .iter()
        .map(|value| {
            let message = format!("the default {:?} is not one of the options of this choice", value.value());
            // An item-level const: evaluated by `cargo check` too, unlike an inline one.
            quote_spanned! {value.span()=>
                const _: () = ::core::assert!(
                    #krate::form::__derive::has_option(<#choice as #krate::__private::Choice>::OPTIONS, #value),
                    #message
                );
            }
        })
        .collect()
}

/// A numeric literal (possibly negative) with its text and span.
struct Number {
    literal: Literal,
    value: f64,
    /// The exact value of an integer literal (0 for a float).
    integer: i128,
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
            let parsed = int
                .base10_parse::<i128>()
                .ok()
                .map(|magnitude| if negative { -magnitude } else { magnitude });
            // Every form integer is an i64 or a u64 on the wire.
            let literal =
                parsed.and_then(|value| match (i64::try_from(value), u64::try_from(value)) {
                    (Ok(signed), _) => Some(Literal::i64_suffixed(signed)),
                    (_, Ok(unsigned)) => Some(Literal::u64_suffixed(unsigned)),
                    _ => None,
                });
            let (Some(value), Some(literal)) = (parsed, literal) else {
                errors.spanned(
                    expr,
                    format!(
                        "`{}` is out of range: form integers fit an i64 or a u64",
                        entry.key
                    ),
                );
                return None;
            };
            Some(Number {
                literal,
                value: value as f64,
                integer: value,
                text: value.to_string(),
                span: expr.span(),
            })
        }
        Lit::Float(float) if !integers_only => {
            let value = sign * float.base10_parse::<f64>().ok()?;
            Some(Number {
                literal: Literal::f64_suffixed(value),
                value,
                integer: 0,
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
                fn from_content(_: &#private::Map<::std::string::String, #private::Value>) -> ::core::result::Result<Self, #private::AnswerError> {
                    ::core::unreachable!()
                }
            }
        };
    };
    let properties = fields.iter().map(|field| {
        let Field {
            wire_name, schema, ..
        } = field;
        let members = schema.iter().map(|(key, value)| {
            if matches!(*key, "minimum" | "maximum") {
                // Intersected with the type's own range, never widening it.
                quote!(#krate::form::__derive::narrow_bound(&mut __schema, #key, #value);)
            } else {
                quote!(__schema.insert(::std::string::String::from(#key), #value);)
            }
        });

        let functions = field_functions(field);
        quote! {
            let mut __schema = (Self::#functions.0)();
            #(#members)*
            __form.field(#wire_name, __schema, Self::#functions.1);
        }
    });
    // Each field's `FormField` items are named in one constant, so that a type that is not a
    // form field is reported once, at the field's type, and not by each method that uses it.
    let functions = fields.iter().map(|field| {
        let (ty, name) = (field.ty, field_functions(field));
        let field_trait = quote_spanned!(ty.span()=> <#ty as #private::FormField>);
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals, clippy::type_complexity)]
            const #name: (
                fn() -> #private::Map<::std::string::String, #private::Value>,
                bool,
                fn(::core::option::Option<&#private::Value>) -> ::core::result::Result<#ty, #private::AnswerError>,
                fn(&#ty) -> ::core::option::Option<#private::Value>,
            ) = (
                #field_trait::property_schema,
                #field_trait::REQUIRED,
                #field_trait::decode,
                #field_trait::encode,
            );
        }
    });
    let checks = fields.iter().flat_map(|field| &field.checks);
    let decoders = fields.iter().map(|field| {
        let Field {
            ident, wire_name, ..
        } = field;
        let functions = field_functions(field);
        quote! {
            #ident: (Self::#functions.2)(__content.get(#wire_name))
                .map_err(|__error| #private::AnswerError::new(::std::format!("`{}`: {}", #wire_name, __error)))?
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

            fn from_content(__content: &#private::Map<::std::string::String, #private::Value>) -> ::core::result::Result<Self, #private::AnswerError> {
                ::core::result::Result::Ok(Self { #(#decoders,)* })
            }
        }

        #[automatically_derived]
        impl #impl_generics #ident #type_generics #where_clause {
            #(#functions)*
        }

        #(#checks)*
    }
}

/// The hidden constant holding a field's `FormField` functions.
fn field_functions(field: &Field<'_>) -> syn::Ident {
    quote::format_ident!("__mrtr_form_field_{}", field.ident.unraw())
}

/// `Serialize`/`Deserialize` as the form's content (what the client sent), so a form answer
/// can be kept across a later `ask!` without the author deriving them. `#[form(serde = false)]`
/// opts out, for a type that derives its own.
fn serde_impls(input: &DeriveInput, krate: &Path, fields: Option<&[Field<'_>]>) -> TokenStream {
    let private = quote!(#krate::__private);
    let serde = quote!(#krate::form::__derive::serde);
    let ident = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    let encoders = fields.into_iter().flatten().map(|field| {
        let Field {
            ident, wire_name, ..
        } = field;
        let functions = field_functions(field);
        quote! {
            if let ::core::option::Option::Some(__value) = (Self::#functions.3)(&self.#ident) {
                __content.insert(::std::string::String::from(#wire_name), __value);
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #serde::Serialize for #ident #type_generics #where_clause {
            fn serialize<__S: #serde::Serializer>(&self, __serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                let mut __content = #private::Map::<::std::string::String, #private::Value>::new();
                #(#encoders)*
                #serde::Serialize::serialize(&__content, __serializer)
            }
        }

        #[automatically_derived]
        impl<'de> #serde::Deserialize<'de> for #ident #type_generics #where_clause {
            fn deserialize<__D: #serde::Deserializer<'de>>(__deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                let __content = <#private::Map<::std::string::String, #private::Value> as #serde::Deserialize>::deserialize(__deserializer)?;
                <Self as #private::Form>::from_content(&__content)
                    .map_err(<__D::Error as #serde::de::Error>::custom)
            }
        }
    }
}
