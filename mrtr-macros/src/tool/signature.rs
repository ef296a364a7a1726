//! The shape a machine function must have: `async fn name([args: A,] [cx: &Context]) -> Result<T, E>`.

use syn::{FnArg, ItemFn, Pat, PathArguments, ReturnType, Type};

use crate::errors::Errors;

/// A parameter of the machine function.
pub(crate) struct Param<'a> {
    pub(crate) pat: &'a Pat,
    pub(crate) ty: &'a Type,
}

/// A validated signature.
pub(crate) struct Signature<'a> {
    pub(crate) args: Option<Param<'a>>,
    pub(crate) context: Option<Param<'a>>,
    pub(crate) output: &'a Type,
}

fn is_context(ty: &Type) -> bool {
    match ty {
        Type::Reference(reference) => match &*reference.elem {
            Type::Path(path) => path
                .path
                .segments
                .last()
                .is_some_and(|segment| segment.ident == "Context"),
            _ => false,
        },
        _ => false,
    }
}

fn is_result(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path.path.segments.last().is_some_and(|segment| {
            segment.ident == "Result"
                && matches!(segment.arguments, PathArguments::AngleBracketed(_))
        }),
        _ => false,
    }
}

pub(crate) fn validate<'a>(
    function: &'a ItemFn,
    what: &str,
    errors: &mut Errors,
) -> Option<Signature<'a>> {
    let signature = &function.sig;
    let mut valid = true;
    let mut fail = |errors: &mut Errors, tokens: &dyn quote::ToTokens, message: String| {
        errors.push(syn::Error::new_spanned(tokens, message));
        valid = false;
    };
    if signature.asyncness.is_none() {
        fail(
            errors,
            &signature.fn_token,
            format!("#[mrtr::{what}] functions must be async; add `async` before `fn`"),
        );
    }
    if let Some(constness) = &signature.constness {
        fail(
            errors,
            constness,
            format!("#[mrtr::{what}] functions cannot be const"),
        );
    }
    if let Some(unsafety) = &signature.unsafety {
        fail(
            errors,
            unsafety,
            format!("#[mrtr::{what}] functions cannot be unsafe"),
        );
    }
    if !signature.generics.params.is_empty() || signature.generics.where_clause.is_some() {
        fail(
            errors,
            &signature.generics,
            format!(
                "#[mrtr::{what}] functions cannot be generic: the machine is a single concrete type"
            ),
        );
    }
    if let Some(variadic) = &signature.variadic {
        fail(
            errors,
            variadic,
            "variadic parameters are not supported".to_owned(),
        );
    }
    let output = match &signature.output {
        ReturnType::Type(_, ty) if is_result(ty) => Some(&**ty),
        ReturnType::Type(_, ty) => {
            fail(
                errors,
                ty,
                format!(
                    "a #[mrtr::{what}] function returns `Result<T, E>`, so that failures reach the client; wrap the value in `Ok(..)`"
                ),
            );
            None
        }
        ReturnType::Default => {
            fail(
                errors,
                &signature.ident,
                format!(
                    "a #[mrtr::{what}] function returns `Result<T, E>`; add `-> Result<String, mrtr::ToolError>` or similar"
                ),
            );
            None
        }
    };
    let mut args = None;
    let mut context = None;
    for input in &signature.inputs {
        match input {
            FnArg::Receiver(receiver) => fail(
                errors,
                receiver,
                format!(
                    "#[mrtr::{what}] cannot be used on methods; write a free function and reach shared state through `cx.state()`"
                ),
            ),
            FnArg::Typed(typed) => {
                let param = Param {
                    pat: &typed.pat,
                    ty: &typed.ty,
                };
                let slot = if is_context(&typed.ty) {
                    &mut context
                } else {
                    &mut args
                };
                if slot.is_some() {
                    let message = if is_context(&typed.ty) {
                        "only one context parameter is allowed".to_owned()
                    } else {
                        format!(
                            "a #[mrtr::{what}] function takes its arguments as one parameter (a struct deriving Deserialize and JsonSchema) plus an optional `&mrtr::Context`"
                        )
                    };
                    fail(errors, typed, message);
                } else {
                    *slot = Some(param);
                }
            }
        }
    }
    if let Some(Param { pat, .. }) = &context
        && !matches!(pat, Pat::Ident(ident) if ident.by_ref.is_none() && ident.mutability.is_none() && ident.subpat.is_none())
        && !matches!(pat, Pat::Wild(_))
    {
        fail(
            errors,
            pat,
            "the context parameter must be a plain name, e.g. `cx: &Context`".to_owned(),
        );
    }
    valid.then(|| Signature {
        args,
        context,
        output: output.expect("checked above"),
    })
}
