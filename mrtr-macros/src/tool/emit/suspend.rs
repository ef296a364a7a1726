//! A suspension: the questions asked and the values kept, serialized into the frame.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use super::slots::Slot;
use super::{Emitter, SUSPENDED, at_binding, machine_label};
use crate::tool::lower::witness_ident;
use crate::tool::scope::BindingId;

impl Emitter<'_> {
    /// The suspension at `site`, saving `saves` (from the plan) first.
    pub(super) fn suspend(&self, site: usize, saves: &[BindingId]) -> TokenStream {
        let data = &self.program.sites[site];
        let questions: Vec<Ident> = (0..data.questions.len())
            .map(|index| format_ident!("__mrtr_question_{}", index, span = Span::mixed_site()))
            .collect();
        let requests = data
            .questions
            .iter()
            .zip(&questions)
            .map(|((_, _, request), question)| quote!(let #question = #request;));
        let witnesses = questions.iter().enumerate().map(|(index, question)| {
            let witness = witness_ident(site, index);
            quote!(#witness = ::core::option::Option::Some(__mrtr_private::answer_type(&#question));)
        });
        let resume = data.resume;
        let saves: TokenStream = saves.iter().flat_map(|id| self.store(*id)).collect();
        // Each kept value is serialized at the span of its binding: a value that cannot be kept
        // is reported at the author's variable.
        let keeps = self.live[resume].iter().flat_map(|id| {
            let (span, slot_span) = at_binding(&self.program.bindings[*id].ident);
            self.slots(*id).into_iter().map(move |Slot { ident, frame, .. }| {
                let slot = Ident::new(&ident.to_string(), slot_span);
                {
                let keep = Ident::new("__mrtr_keep", span);
                quote_spanned!(span=> __mrtr_try!(#keep(&mut __mrtr_frame_out, #frame, &#slot));)
            }
            })
        });
        let data = &self.program.sites[site];
        let asks = data
            .questions
            .iter()
            .zip(&questions)
            .map(|((key, _, _), question)| quote!(.ask(#key, #question)));
        let pc = resume as u32;
        let kept_types = self.kept_types(site);
        let (suspended, label) = (SUSPENDED, machine_label());
        quote!(#[allow(unreachable_code, unused_assignments)] {
            #(#requests)*
            #(#witnesses)*
            #saves
            let mut __mrtr_frame_out = __mrtr_private::Frame::new();
            #(#keeps)*
            __mrtr_suspended = ::core::option::Option::Some(__mrtr_private::Suspension::new(#pc, __mrtr_frame_out.into_value())
                .keeping(__mrtr_private::kept_types_once(#kept_types))
                #(#asks)*);
            // The round ends outside the author's scopes: what is not kept drops here.
            __mrtr_pc = #suspended;
            continue #label;
        })
    }

    /// The arguments naming what resume point `site` keeps and expects, for its signature: its
    /// cache, then each kept slot's name and type and each answer's type, sorted by name so
    /// that declaration order does not count.
    pub(super) fn kept_types(&self, site: usize) -> TokenStream {
        let data = &self.program.sites[site];
        let mut entries: Vec<(String, TokenStream)> = self.live[data.resume]
            .iter()
            .flat_map(|id| self.slots(*id))
            .map(|Slot { ident, frame, .. }| (frame, quote!(__mrtr_private::type_of(&#ident))))
            .collect();
        for (index, (key, _, _)) in data.questions.iter().enumerate() {
            let witness = witness_ident(site, index);
            entries.push((
                format!("ask {key}"),
                quote!(__mrtr_private::answer_type_of(&#witness)),
            ));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let entries = entries
            .iter()
            .map(|(name, type_name)| quote!((#name, #type_name)));
        // The signature is hashed once per process; each use site has its own cache.
        quote!(
            {
                static __MRTR_KEPT_TYPES: ::std::sync::OnceLock<u32> = ::std::sync::OnceLock::new();
                &__MRTR_KEPT_TYPES
            },
            &[#(#entries),*]
        )
    }
}
