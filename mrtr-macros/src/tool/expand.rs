//! The code templates: everything `#[mrtr::tool]` writes around the emitted body. The unit
//! struct and the function that returns it, the `Machine` impl (fingerprint, resume points,
//! known forms, flow, `step`), the descriptor of each kind, and after errors the fallback and
//! the unlowered copy of the body that keeps the rest of the crate checked.
//!
//! Templates only read what the passes before them decided (options, signature, program,
//! emitted body); they make no decisions and raise no errors.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::visit_mut::VisitMut;
use syn::{ItemFn, Path};

use super::ask;
use super::flow;
use super::ir::Program;
use super::kind::Kind;
use super::options::Options;
use super::resume;
use super::signature::Signature;
use crate::docs::doc_text;

/// The name clients call the machine by: `name = ".."`, else the function's.
fn name(function: &ItemFn, options: &Options) -> String {
    options.name.as_ref().map_or_else(
        || function.sig.ident.unraw().to_string(),
        |name| name.value(),
    )
}

/// The request builder an `ask!` question calls (`elicit::form::<T>(..)`: `form`), if it is a
/// plain call.
fn builder(request: &syn::Expr) -> Option<&syn::PathSegment> {
    match request {
        syn::Expr::Call(call) => match &*call.func {
            syn::Expr::Path(path) => path.path.segments.last(),
            _ => None,
        },
        _ => None,
    }
}

/// The kinds of question the body may ask, read from the request builders it calls.
fn asks(program: &Program, krate: &Path) -> Vec<TokenStream> {
    let mut kinds: Vec<TokenStream> = Vec::new();
    for (_, _, request) in program.sites.iter().flat_map(|site| &site.questions) {
        let called = builder(request).map(|segment| segment.ident.to_string());
        let kind = match called.as_deref() {
            Some("form" | "choice") => quote!(FormElicitation),
            Some("url") => quote!(UrlElicitation),
            Some("sample") => quote!(Sampling {
                tools: false,
                context: false
            }),
            Some("roots") => quote!(Roots),
            _ => continue,
        };
        let kind = quote!(#krate::__private::InputKind::#kind);
        if !kinds
            .iter()
            .any(|seen| seen.to_string() == kind.to_string())
        {
            kinds.push(kind);
        }
    }
    kinds
}

/// Whether the body has a hand-off point (`ask!(handoff())`).
fn hands_off(program: &Program) -> bool {
    program
        .sites
        .iter()
        .flat_map(|site| &site.questions)
        .any(|(_, _, request)| builder(request).is_some_and(|segment| segment.ident == "handoff"))
}

/// `Machine::known_forms`: the schema of each form type an `ask!` names with a turbofish
/// (`elicit::form::<Confirm>(..)`), so that states waiting there name the form by id. A form
/// whose type is inferred is not listed: its states carry its schema.
fn known_forms(program: &Program, krate: &Path) -> TokenStream {
    let mut types: Vec<&syn::Type> = Vec::new();
    for (_, _, request) in program.sites.iter().flat_map(|site| &site.questions) {
        let Some(segment) = builder(request).filter(|segment| segment.ident == "form") else {
            continue;
        };
        let syn::PathArguments::AngleBracketed(arguments) = &segment.arguments else {
            continue;
        };
        if let [syn::GenericArgument::Type(form)] = Vec::from_iter(&arguments.args)[..]
            && !types.iter().any(|seen| {
                seen.to_token_stream().to_string() == form.to_token_stream().to_string()
            })
        {
            types.push(form);
        }
    }
    if types.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn known_forms(&self) -> ::std::vec::Vec<#krate::__private::Value> {
            ::std::vec![#(<#types as #krate::__private::Form>::requested_schema()),*]
        }
    }
}

fn descriptor(
    kind: Kind,
    function: &ItemFn,
    args: Option<&syn::Type>,
    options: &Options,
    asks: &[TokenStream],
    hands_off: bool,
) -> TokenStream {
    let description = options
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .or_else(|| doc_text(&function.attrs));
    descriptor_body(
        kind,
        options,
        &name(function, options),
        description.as_deref(),
        args,
        asks,
        hands_off,
    )
}

/// The hidden module that holds the machine's type.
fn machine_module(function: &ItemFn) -> syn::Ident {
    quote::format_ident!("__mrtr_{}", function.sig.ident.unraw())
}

/// The type of the machine: a unit struct named like the function, in a module of its own, so
/// that the function's rustdoc reads `fn name() -> name` and the name meets no other item.
fn machine_type(function: &ItemFn) -> TokenStream {
    let (module, ident) = (machine_module(function), &function.sig.ident);
    quote!(#module::#ident)
}

/// The attributes of the function that go on everything generated: `#[cfg]` (and
/// `#[cfg_attr]`). Lint attributes go on the body, doc comments on the function.
fn cfgs(function: &ItemFn) -> Vec<&syn::Attribute> {
    function
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr"))
        .collect()
}

/// The lint attributes of the function, which go on the body.
fn lints(function: &ItemFn) -> Vec<&syn::Attribute> {
    function
        .attrs
        .iter()
        .filter(|attr| {
            ["allow", "warn", "deny", "forbid", "expect"]
                .iter()
                .any(|lint| attr.path().is_ident(lint))
        })
        .collect()
}

/// The function that stands for the tool: it keeps the author's name, docs and visibility, and
/// returns the machine, which registration takes (`.tool(name)`). A function, not a unit
/// value, so the body can bind a local of the same name.
fn unit_value(function: &ItemFn, flow: Option<&str>) -> TokenStream {
    let (vis, ident) = (&function.vis, &function.sig.ident);
    let (module, machine) = (machine_module(function), machine_type(function));
    let cfgs = cfgs(function);
    let docs = function
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"));
    let flow_docs = flow.map(flow_docs);
    quote! {
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_snake_case, missing_docs)]
        mod #module {
            #[allow(non_camel_case_types)]
            #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
            pub struct #ident;
        }

        #(#cfgs)*
        #(#docs)*
        #flow_docs
        #[allow(dead_code)]
        #vis fn #ident() -> #machine {
            #machine
        }
    }
}

/// Where rustdoc pages load Mermaid from to draw a machine's flow (the text stays readable
/// where it cannot load).
const MERMAID_SCRIPT: &str = "https://cdn.jsdelivr.net/npm/mermaid@11/dist/mermaid.esm.min.mjs";

/// The flow appended to the function's rustdoc: a Mermaid diagram, drawn by the script.
fn flow_docs(flow: &str) -> TokenStream {
    let html = format!(
        "\n\n# Flow\n\n<pre class=\"mermaid\">\n{flow}</pre>\n<script type=\"module\">import mermaid from \"{MERMAID_SCRIPT}\"; mermaid.initialize({{ startOnLoad: true }});</script>\n"
    );
    quote!(#[doc = #html])
}

/// The machine of a body that lowered: the unit value, the `Machine` impl around the emitted
/// `body`, the descriptor impl and `Generated`.
pub(super) fn expand_machine(
    kind: Kind,
    function: &ItemFn,
    signature: &Signature<'_>,
    options: &Options,
    program: &Program,
    body: TokenStream,
    identities: &[resume::Identity],
) -> TokenStream {
    let krate = &options.krate;
    let ident = machine_type(function);
    let (cfgs, lints) = (cfgs(function), lints(function));
    let output = signature.output;
    let context = signature
        .context
        .as_ref()
        .and_then(|context| match context.pat {
            syn::Pat::Ident(pat) => {
                let (name, ty) = (&pat.ident, context.ty);
                Some(quote!(let #name: #ty = __mrtr_cx;))
            }
            _ => None,
        });
    let descriptor = descriptor(
        kind,
        function,
        signature.args.as_ref().map(|args| args.ty),
        options,
        &asks(program, krate),
        hands_off(program),
    );
    let (descriptor_trait, descriptor_type) = (descriptor_trait(kind), descriptor_type(kind));
    // Located at the return type: an output the kind cannot send is reported there.
    let finish = finish(
        kind,
        proc_macro2::Span::call_site().located_at(syn::spanned::Spanned::span(output)),
    );
    let machine_name = name(function, options);
    let flow = flow::mermaid(program, &machine_name);
    let (kind_name, version) = (kind.attribute(), options.version);
    let resume_points = resume::table(identities, krate);
    let known_forms = known_forms(program, krate);
    let unit = unit_value(function, Some(&flow));
    quote! {
        #unit

        #(#cfgs)*
        #[automatically_derived]
        impl #krate::__private::Machine for #ident {
            fn fingerprint(&self) -> #krate::__private::Fingerprint {
                static FINGERPRINT: ::std::sync::OnceLock<#krate::__private::Fingerprint> = ::std::sync::OnceLock::new();
                #krate::__private::versioned_fingerprint(&FINGERPRINT, #kind_name, #machine_name, #version)
            }

            #resume_points

            #known_forms

            fn flowchart(&self) -> ::core::option::Option<&'static str> {
                ::core::option::Option::Some(#flow)
            }

            #(#lints)*
            fn step<'__mrtr_a>(&'__mrtr_a self, __mrtr_step: #krate::__private::Step<'__mrtr_a>)
                -> #krate::__private::BoxFuture<'__mrtr_a, ::core::result::Result<#krate::__private::Outcome, #krate::__private::StepError>>
            {
                ::std::boxed::Box::pin(async move {
                    use #krate::__private as __mrtr_private;
                    let __mrtr_private::Step { target: __mrtr_target, arguments: __mrtr_arguments, cx: __mrtr_cx, pc: __mrtr_pc_in, frame: __mrtr_frame, kept_types: __mrtr_kept_types_in, answers: mut __mrtr_answers, .. } = __mrtr_step;
                    let __mrtr_channel = __mrtr_private::Channel::default();
                    let __mrtr_body = __mrtr_private::body::<#output>(async {
                        #[allow(unused_imports)]
                        use __mrtr_private::ask;
                        macro_rules! __mrtr_try {
                            ($result:expr) => {
                                match $result {
                                    ::core::result::Result::Ok(value) => value,
                                    ::core::result::Result::Err(error) => match __mrtr_private::fail(&__mrtr_channel, error).await {},
                                }
                            };
                        }
                        #context
                        #body
                    });
                    let __mrtr_ended = __mrtr_private::drive(__mrtr_body, &__mrtr_channel).await?;
                    ::core::result::Result::Ok(#finish)
                })
            }
        }

        #(#cfgs)*
        #[automatically_derived]
        impl #krate::__private::#descriptor_trait for #ident {
            #descriptor
        }

        #(#cfgs)*
        #[automatically_derived]
        impl #krate::__private::Generated for #ident {
            type Descriptor = #krate::__private::#descriptor_type;
            fn describe(&self) -> Self::Descriptor {
                <Self as #krate::__private::#descriptor_trait>::descriptor(self)
            }
        }
    }
}

/// After errors in the body: the author's function under another name, with each `ask!`
/// replaced by a placeholder of its answer's type, so the rest of the body is still checked
/// and its imports are still used.
pub(super) fn unlowered(function: &ItemFn, krate: &Path) -> TokenStream {
    struct Placeholders<'a>(&'a Path);
    impl syn::visit_mut::VisitMut for Placeholders<'_> {
        fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
            if let syn::Expr::Macro(mac) = expr
                && ask::is_ask(&mac.mac)
            {
                *expr = syn::Expr::Verbatim(self.placeholder(&mac.mac));
                return;
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
        fn visit_local_mut(&mut self, local: &mut syn::Local) {
            // `let (a, b) = ask!(one)` has no key to derive (reported): a placeholder of the
            // one answer's type would add a mismatch with the pattern, so this one diverges.
            if let Some(init) = &mut local.init
                && let syn::Expr::Macro(mac) = &*init.expr
                && ask::is_ask(&mac.mac)
                && !binds_one_name(&local.pat)
                && let Ok([question]) = ask::AskCall::questions(&mac.mac).as_deref()
                && question.key.is_none()
            {
                let (krate, request) = (self.0, &question.request);
                let value = diverging_like(&local.pat);
                *init.expr = syn::Expr::Verbatim(quote!({
                    let _ = #krate::__private::unlowered(#request);
                    #value
                }));
                return;
            }
            syn::visit_mut::visit_local_mut(self, local);
        }
        fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
            if let syn::Stmt::Macro(mac) = stmt
                && ask::is_ask(&mac.mac)
            {
                let placeholder = self.placeholder(&mac.mac);
                *stmt = syn::parse_quote!(#placeholder;);
                return;
            }
            syn::visit_mut::visit_stmt_mut(self, stmt);
        }
    }
    impl Placeholders<'_> {
        fn placeholder(&self, mac: &syn::Macro) -> TokenStream {
            let krate = self.0;
            match ask::AskCall::questions(mac) {
                Ok(questions) => {
                    let answers = questions.iter().map(|question| {
                        let request = &question.request;
                        quote!(#krate::__private::unlowered(#request))
                    });
                    if questions.len() == 1 {
                        quote!(#(#answers)*)
                    } else {
                        quote!((#(#answers),*))
                    }
                }
                Err(_) => quote!(::core::unreachable!()),
            }
        }
    }
    /// A value that never exists, shaped like `pat` so that each of its names gets a type.
    fn diverging_like(pat: &syn::Pat) -> TokenStream {
        match pat {
            syn::Pat::Tuple(tuple) => {
                let elements = tuple.elems.iter().map(diverging_like);
                quote!((#(#elements,)*))
            }
            syn::Pat::Paren(paren) => diverging_like(&paren.pat),
            _ => quote!(::core::unreachable!()),
        }
    }
    fn binds_one_name(pat: &syn::Pat) -> bool {
        match pat {
            syn::Pat::Ident(_) => true,
            syn::Pat::Type(typed) => binds_one_name(&typed.pat),
            _ => false,
        }
    }
    let mut function = function.clone();
    function.sig.ident = quote::format_ident!("__mrtr_unlowered_{}", function.sig.ident);
    Placeholders(krate).visit_block_mut(&mut function.block);
    function.attrs.retain(|attr| {
        [
            "cfg", "cfg_attr", "allow", "warn", "deny", "forbid", "expect",
        ]
        .iter()
        .any(|name| attr.path().is_ident(name))
    });
    quote! {
        #[allow(dead_code, unused, unreachable_code, clippy::all)]
        #function
    }
}

/// After errors: the function and trait impls without a machine, so the rest of the crate
/// (registering it, say) still compiles and only the real errors are shown.
pub(super) fn fallback(kind: Kind, function: &ItemFn, options: &Options) -> TokenStream {
    let krate = &options.krate;
    let ident = machine_type(function);
    let cfgs = cfgs(function);
    let unit = unit_value(function, None);
    let descriptor = descriptor(kind, function, None, options, &[], false);
    let (descriptor_trait, descriptor_type) = (descriptor_trait(kind), descriptor_type(kind));
    quote! {
        #unit

        #(#cfgs)*
        impl #krate::__private::Machine for #ident {
            fn fingerprint(&self) -> #krate::__private::Fingerprint {
                #krate::__private::Fingerprint::from_bytes([0; 16])
            }

            fn step<'__mrtr_a>(&'__mrtr_a self, _: #krate::__private::Step<'__mrtr_a>)
                -> #krate::__private::BoxFuture<'__mrtr_a, ::core::result::Result<#krate::__private::Outcome, #krate::__private::StepError>>
            {
                ::core::unreachable!("this machine did not compile")
            }
        }

        #(#cfgs)*
        impl #krate::__private::#descriptor_trait for #ident {
            #descriptor
        }

        #(#cfgs)*
        impl #krate::__private::Generated for #ident {
            type Descriptor = #krate::__private::#descriptor_type;
            fn describe(&self) -> Self::Descriptor {
                <Self as #krate::__private::#descriptor_trait>::descriptor(self)
            }
        }
    }
}

fn descriptor_trait(kind: Kind) -> TokenStream {
    match kind {
        Kind::Tool => quote!(Tool),
        Kind::Prompt => quote!(Prompt),
        Kind::Resource => quote!(Resource),
    }
}

/// The type of the descriptor `descriptor_trait` gives.
fn descriptor_type(kind: Kind) -> TokenStream {
    match kind {
        Kind::Tool => quote!(ToolDescriptor),
        Kind::Prompt => quote!(PromptDescriptor),
        Kind::Resource => quote!(ResourceDescriptor),
    }
}

/// Turns how the body ended into the step's outcome (`span`: where a wrong output type is
/// reported).
fn finish(kind: Kind, span: proc_macro2::Span) -> TokenStream {
    match kind {
        Kind::Tool => quote_spanned!(span=> __mrtr_private::finish_tool(__mrtr_ended)),
        Kind::Prompt => quote_spanned!(span=> __mrtr_private::finish_prompt(__mrtr_ended)),
        Kind::Resource => {
            quote_spanned!(span=> __mrtr_private::finish_resource(__mrtr_ended, __mrtr_target))
        }
    }
}

/// The body of `fn descriptor(&self)`.
fn descriptor_body(
    kind: Kind,
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
    match kind {
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
