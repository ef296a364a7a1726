//! An `ask!`: the block ends with a suspension, and the answer is read where the ask stood.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use super::{Lowerer, answer_expr, place_answer};
use crate::tool::ask::AskCall;
use crate::tool::ir::{Node, Site, Unlowerable};
use crate::tool::syntax::{first_ask, leftmost_ask};

impl Lowerer {
    /// Ends the current block with the site's questions; returns the expression that yields
    /// the answer(s) in the resume block, which becomes current.
    pub(super) fn suspend(
        &mut self,
        mac: &syn::Macro,
        binding: Option<Ident>,
    ) -> Option<TokenStream> {
        let call = match AskCall::parse(mac) {
            Ok(call) => call,
            Err(error) => {
                self.refuse(Unlowerable::MalformedAsk(error));
                return None;
            }
        };
        let recheck = call.is_recheck();
        let single = call.questions.len() == 1;
        let mut questions = Vec::new();
        for question in &call.questions {
            let key = question
                .key
                .clone()
                .or_else(|| if single { binding.clone() } else { None });
            match key {
                Some(key) => {
                    // A key used twice in one batch is refused by `check::body`.
                    let name = key.unraw().to_string();
                    questions.push((name, key.span(), question.request.clone()));
                }
                // State-only: no key, but the request is still evaluated like any other.
                None if recheck => questions.push((
                    String::new(),
                    call.questions[0].request.span(),
                    question.request.clone(),
                )),
                None => self.refuse(Unlowerable::AskWithoutKey(
                    question.request.to_token_stream(),
                )),
            }
        }
        let (mut uses, mut reads) = (BTreeSet::new(), Vec::new());
        for (_, _, request) in &questions {
            let found = self.uses(request);
            uses.extend(found.uses);
            reads.extend(found.reads);
        }
        let resume = self.new_block();
        let site = self.program.sites.len();
        self.program.sites.push(Site {
            questions,
            uses,
            reads,
            resume,
            path: self.path.clone(),
        });
        self.program.blocks[self.current].successors.insert(resume);
        let visible = self.scopes.visible();
        self.push(Node::Suspend { site, visible });
        self.switch_to(resume);
        let answers: Vec<TokenStream> = self.program.sites[site]
            .questions
            .iter()
            .enumerate()
            .map(|(index, (key, _, _))| answer_expr(site, index, key))
            .collect();
        Some(match answers.len() {
            0 => quote!(()),
            1 => answers.into_iter().next().expect("one answer"),
            _ => quote!((#(#answers),*)),
        })
    }

    /// Evaluates the ask that `expr` starts with (nothing of the statement runs before it),
    /// and returns `expr` with the answer in its place.
    pub(super) fn hoist(&mut self, expr: &Expr, key: Option<Ident>) -> Option<Expr> {
        let mut expr = expr.clone();
        let Some(slot) = leftmost_ask(&mut expr) else {
            let misplaced = first_ask(&expr).map_or_else(|| expr.span(), |mac| mac.span());
            self.refuse(Unlowerable::AskNotEvaluatedFirst(misplaced));
            return None;
        };
        let Expr::Macro(mac) = std::mem::replace(slot, Expr::Verbatim(TokenStream::new())) else {
            unreachable!("leftmost_ask returns an ask")
        };
        if let Some(other) = first_ask(&expr) {
            self.refuse(Unlowerable::SecondAskInPlace(other.span()));
            return None;
        }
        let answer = self.suspend(&mac.mac, key)?;
        place_answer(&mut expr, &answer);
        Some(expr)
    }
}
