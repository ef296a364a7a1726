//! Holes: where a lowered `break`/`continue` or an answer goes in the author's tokens.

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;

use super::Emitter;
use crate::tool::ir::Code;
use crate::tool::lower::HOLE;
use crate::tool::plan::Held;

impl Emitter<'_> {
    /// The code with its holes filled: each a jump out of a lowered loop.
    pub(super) fn fill(&mut self, held: &Held, code: &Code) -> TokenStream {
        if code.holes.is_empty() {
            return code.tokens.clone();
        }
        let mut holes = code.holes.iter();
        self.fill_tokens(held, code.tokens.clone(), &mut holes)
    }

    fn fill_tokens(
        &mut self,
        held: &Held,
        tokens: TokenStream,
        holes: &mut std::slice::Iter<'_, usize>,
    ) -> TokenStream {
        let mut out = Vec::new();
        for token in tokens {
            match token {
                TokenTree::Ident(ident) if ident == HOLE => {
                    let hole = *holes.next().expect("one hole per placeholder");
                    let exit = &self.program.holes[hole];
                    let mut held = held.clone();
                    let value = exit.value.as_ref().map(|(binding, value)| {
                        let value = value.clone().unwrap_or_else(|| quote!(()));
                        match binding {
                            Some(binding) => {
                                held.declare([*binding]);
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
                    let (target, visible, hidden) =
                        (exit.target, exit.visible.clone(), exit.hidden.clone());
                    let jump = self.jump(&held, target, &visible, &hidden);
                    out.push(TokenTree::Group(proc_macro2::Group::new(
                        proc_macro2::Delimiter::Brace,
                        quote!(#value #jump),
                    )));
                }
                TokenTree::Group(group) => {
                    let mut inner = proc_macro2::Group::new(
                        group.delimiter(),
                        self.fill_tokens(held, group.stream(), holes),
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
