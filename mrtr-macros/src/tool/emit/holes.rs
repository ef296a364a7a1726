//! Holes: where a lowered `break`/`continue` or an answer goes in the author's tokens.

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;

use super::Emitter;
use crate::tool::ir::Code;
use crate::tool::lower::HOLE;
use crate::tool::plan::Saves;

impl Emitter<'_> {
    /// The code with its holes filled: each a jump out of a lowered loop, saving what the
    /// plan says (`saves`, one list per hole).
    pub(super) fn fill(&self, code: &Code, saves: &[Saves]) -> TokenStream {
        if code.holes.is_empty() {
            return code.tokens.clone();
        }
        debug_assert_eq!(code.holes.len(), saves.len(), "a plan per hole");
        let mut holes = code.holes.iter().zip(saves);
        self.fill_tokens(code.tokens.clone(), &mut holes)
    }

    fn fill_tokens<'s>(
        &self,
        tokens: TokenStream,
        holes: &mut impl Iterator<Item = (&'s usize, &'s Saves)>,
    ) -> TokenStream {
        let mut out = Vec::new();
        for token in tokens {
            match token {
                TokenTree::Ident(ident) if ident == HOLE => {
                    let (hole, saves) = holes.next().expect("one hole per placeholder");
                    let exit = &self.program.holes[*hole];
                    let value = exit.value.as_ref().map(|(binding, value)| {
                        let value = value.clone().unwrap_or_else(|| quote!(()));
                        match binding {
                            Some(binding) => {
                                let ident = &self.program.bindings[*binding].ident;
                                let ty = self.program.bindings[*binding]
                                    .annotation
                                    .as_ref()
                                    .map(|ty| quote!(: #ty));
                                quote!(let #ident #ty = #value;)
                            }
                            None => quote!(let _ = #value;),
                        }
                    });
                    let jump = self.jump(exit.target, saves);
                    out.push(TokenTree::Group(proc_macro2::Group::new(
                        proc_macro2::Delimiter::Brace,
                        quote!(#value #jump),
                    )));
                }
                TokenTree::Group(group) => {
                    let mut inner = proc_macro2::Group::new(
                        group.delimiter(),
                        self.fill_tokens(group.stream(), holes),
                    );
                    inner.set_span(group.span());
                    out.push(TokenTree::Group(inner));
                }
                other => out.push(other),
            }
        }
        out.into_iter().collect()
    }
}
