//! `#[derive(Choice)]`: a unit-only enum becomes the options of a single-select (and, in a
//! `Vec`, of a multi-select).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Path};

use crate::attr;
use crate::errors::Errors;

struct Variant<'a> {
    ident: &'a Ident,
    value: String,
    title: Option<LitStr>,
}

pub(crate) fn derive(input: DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let container = attr::entries(&input.attrs, "choice", &["crate", "serde"], &mut errors);
    let krate = attr::crate_path(&container, &mut errors);
    let serde = attr::wants_serde(&container, &mut errors);
    let variants = parse_variants(&input, &mut errors);
    let mut expanded = expand(&input.ident, &krate, variants.as_deref());
    if serde {
        expanded.extend(serde_impls(&input.ident, &krate));
    }
    let compile_errors = errors.into_compile_errors();
    quote! { #expanded #compile_errors }
}

fn parse_variants<'a>(input: &'a DeriveInput, errors: &mut Errors) -> Option<Vec<Variant<'a>>> {
    if !input.generics.params.is_empty() {
        errors.spanned(
            &input.generics,
            "a choice cannot be generic: its options are fixed at compile time",
        );
    }
    let Data::Enum(data) = &input.data else {
        errors.spanned(
            &input.ident,
            "`Choice` is derived on an enum whose variants are the options",
        );
        return None;
    };
    if data.variants.is_empty() {
        errors.spanned(&input.ident, "a choice needs at least one option");
    }
    let mut variants: Vec<Variant<'a>> = Vec::new();
    for variant in &data.variants {
        let entries = attr::entries(&variant.attrs, "choice", &["rename", "title"], errors);
        if !matches!(variant.fields, Fields::Unit) {
            errors.spanned(
                &variant.fields,
                "an option carries no data: make it a unit variant",
            );
        }
        let value = entries
            .iter()
            .find(|entry| entry.key == "rename")
            .and_then(|entry| attr::string(entry, errors))
            .map_or_else(|| variant.ident.to_string(), |value| value.value());
        let title = entries
            .iter()
            .find(|entry| entry.key == "title")
            .and_then(|entry| attr::string(entry, errors));
        if variants.iter().any(|seen| seen.value == value) {
            errors.spanned(
                &variant.ident,
                format!("two options have the value {value:?}; rename one"),
            );
        }
        variants.push(Variant {
            ident: &variant.ident,
            value,
            title,
        });
    }
    errors.is_empty().then_some(variants)
}

fn expand(ident: &Ident, krate: &Path, variants: Option<&[Variant<'_>]>) -> TokenStream {
    let private = quote!(#krate::__private);
    let (options, arms, values) = match variants {
        Some(variants) => {
            let options = variants.iter().map(|variant| {
                let value = &variant.value;
                let title = match &variant.title {
                    Some(title) => quote!(::core::option::Option::Some(#title)),
                    None => quote!(::core::option::Option::None),
                };
                quote!(#private::ChoiceOption { value: #value, title: #title })
            });
            let arms = variants.iter().map(|variant| {
                let (value, variant) = (&variant.value, variant.ident);
                quote!(#value => ::core::option::Option::Some(Self::#variant),)
            });
            let values = variants.iter().map(|variant| {
                let (value, variant) = (&variant.value, variant.ident);
                quote!(Self::#variant => #value,)
            });
            (
                quote!(#(#options),*),
                quote!(#(#arms)*),
                quote!(#(#values)*),
            )
        }
        // Fallback after errors: keeps uses of the type compiling.
        None => (quote!(), quote!(), quote!(_ => ::core::unreachable!(),)),
    };
    let derive = quote!(#krate::form::__derive);
    quote! {
        #[automatically_derived]
        impl #private::Choice for #ident {
            const OPTIONS: &'static [#private::ChoiceOption] = &[#options];

            fn from_value(__value: &str) -> ::core::option::Option<Self> {
                match __value {
                    #arms
                    _ => ::core::option::Option::None,
                }
            }

            fn to_value(&self) -> &'static str {
                match self {
                    #values
                }
            }
        }

        #[automatically_derived]
        impl #derive::Sealed for #ident {}

        #[automatically_derived]
        impl #private::FormField for #ident {
            fn property_schema() -> #private::Map<::std::string::String, #private::Value> {
                <Self as #private::Choice>::single_select_schema()
            }

            fn decode(__value: ::core::option::Option<&#private::Value>) -> ::core::result::Result<Self, #private::AnswerError> {
                <Self as #private::Choice>::decode_choice(__value)
            }

            fn encode(&self) -> ::core::option::Option<#private::Value> {
                ::core::option::Option::Some(#private::Value::from(<Self as #private::Choice>::to_value(self)))
            }
        }
    }
}

/// `Serialize`/`Deserialize` as the option's value, so a choice can be kept across an `ask!`
/// without the author deriving them (`#[choice(serde = false)]` opts out).
fn serde_impls(ident: &Ident, krate: &Path) -> TokenStream {
    let private = quote!(#krate::__private);
    let serde = quote!(#krate::form::__derive::serde);
    quote! {
        #[automatically_derived]
        impl #serde::Serialize for #ident {
            fn serialize<__S: #serde::Serializer>(&self, __serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                __serializer.serialize_str(<Self as #private::Choice>::to_value(self))
            }
        }

        #[automatically_derived]
        impl<'de> #serde::Deserialize<'de> for #ident {
            fn deserialize<__D: #serde::Deserializer<'de>>(__deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                let __value = <::std::string::String as #serde::Deserialize>::deserialize(__deserializer)?;
                <Self as #private::Choice>::from_value(&__value).ok_or_else(|| {
                    <__D::Error as #serde::de::Error>::custom(::std::format!("{:?} is not one of the options", __value))
                })
            }
        }
    }
}
