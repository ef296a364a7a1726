//! Collects every error of one expansion so the user sees them all at once, each at its own
//! tokens (serde's `Ctxt`, thiserror's approach).

use proc_macro2::TokenStream;

#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    pub(crate) fn spanned(
        &mut self,
        tokens: impl quote::ToTokens,
        message: impl std::fmt::Display,
    ) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.combined.is_none()
    }

    /// The errors as `compile_error!` invocations (nothing if there were none).
    pub(crate) fn into_compile_errors(self) -> TokenStream {
        self.combined
            .map(|error| error.to_compile_error())
            .unwrap_or_default()
    }
}
