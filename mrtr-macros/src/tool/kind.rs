//! The three requests that may answer `input_required`, and what differs between their
//! machines: the attribute's name and options, how the result is finished, the descriptor.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::options::Options;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }

    pub(crate) fn options(self) -> &'static [&'static str] {
        match self {
            Kind::Tool => &[
                "name",
                "description",
                "crate",
                "max_rounds",
                "single_use",
                "version",
                "task",
            ],
            Kind::Prompt => &["name", "description", "crate", "max_rounds", "version"],
            Kind::Resource => &[
                "uri",
                "name",
                "description",
                "mime_type",
                "ttl_ms",
                "cache_scope",
                "crate",
                "max_rounds",
                "version",
            ],
        }
    }

    pub(crate) fn descriptor_trait(self) -> TokenStream {
        match self {
            Kind::Tool => quote!(Tool),
            Kind::Prompt => quote!(Prompt),
            Kind::Resource => quote!(Resource),
        }
    }

    /// The type of the descriptor `descriptor_trait` gives.
    pub(crate) fn descriptor_type(self) -> TokenStream {
        match self {
            Kind::Tool => quote!(ToolDescriptor),
            Kind::Prompt => quote!(PromptDescriptor),
            Kind::Resource => quote!(ResourceDescriptor),
        }
    }

    /// Turns how the body ended into the step's outcome (`span`: where a wrong output type is
    /// reported).
    pub(crate) fn finish(self, span: proc_macro2::Span) -> TokenStream {
        match self {
            Kind::Tool => quote_spanned!(span=> __mrtr_private::finish_tool(__mrtr_ended)),
            Kind::Prompt => quote_spanned!(span=> __mrtr_private::finish_prompt(__mrtr_ended)),
            Kind::Resource => {
                quote_spanned!(span=> __mrtr_private::finish_resource(__mrtr_ended, __mrtr_target))
            }
        }
    }

    /// The body of `fn descriptor(&self)`.
    pub(crate) fn descriptor(
        self,
        options: &Options,
        name: &str,
        description: Option<&str>,
        args: Option<&syn::Type>,
        asks: &[TokenStream],
        hands_off: bool,
    ) -> TokenStream {
        let private = {
            let krate = &options.krate;
            quote!(#krate::__private)
        };
        let description = description.map(|text| quote!(__mrtr_descriptor.description = ::core::option::Option::Some(::std::string::String::from(#text));));
        let max_rounds = options.max_rounds.as_ref().map(
            |rounds| quote!(__mrtr_descriptor.max_rounds = ::core::option::Option::Some(#rounds);),
        );
        match self {
            Kind::Tool => {
                let schema = match args {
                    Some(ty) => quote!(#private::input_schema::<#ty>()),
                    None => quote!(#private::no_arguments_schema()),
                };
                let single_use = options.single_use;
                let task = options.task.as_ref().map(|support| {
                    let variant = match support.value().as_str() {
                        "required" => quote!(Required),
                        _ => quote!(Optional),
                    };
                    quote!(__mrtr_descriptor = __mrtr_descriptor.task(#private::TaskSupport::#variant, #hands_off);)
                });
                quote! {
                    fn descriptor(&self) -> #private::ToolDescriptor {
                        let mut __mrtr_descriptor = #private::ToolDescriptor::new(#name, #schema).asks([#(#asks),*]);
                        #description
                        #max_rounds
                        __mrtr_descriptor.single_use = #single_use;
                        #task
                        __mrtr_descriptor
                    }
                }
            }
            Kind::Prompt => {
                let arguments = args.map(
                    |ty| quote!(__mrtr_descriptor.arguments = #private::prompt_arguments::<#ty>();),
                );
                quote! {
                    fn descriptor(&self) -> #private::PromptDescriptor {
                        let mut __mrtr_descriptor = #private::PromptDescriptor::new(#name);
                        #arguments
                        #description
                        #max_rounds
                        __mrtr_descriptor
                    }
                }
            }
            Kind::Resource => {
                let uri = options
                    .uri
                    .as_ref()
                    .map(syn::LitStr::value)
                    .unwrap_or_default();
                let mime_type = options.mime_type.as_ref().map(|mime| quote!(__mrtr_descriptor.mime_type = ::core::option::Option::Some(::std::string::String::from(#mime));));
                let cache = options.ttl_ms.as_ref().map(|ttl| {
                    let scope = match options.cache_scope.as_ref().map(syn::LitStr::value).as_deref() {
                        Some("public") => quote!(Public),
                        _ => quote!(Private),
                    };
                    quote!(__mrtr_descriptor.cache = #private::CacheHint { ttl_ms: #ttl, scope: #private::CacheScope::#scope };)
                });
                quote! {
                    fn descriptor(&self) -> #private::ResourceDescriptor {
                        let mut __mrtr_descriptor = #private::ResourceDescriptor::new(#name, #uri);
                        #description
                        #mime_type
                        #cache
                        #max_rounds
                        __mrtr_descriptor
                    }
                }
            }
        }
    }
}
