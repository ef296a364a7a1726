//! Checks that never run: each kept value's type is checked where the author named it (kept
//! in requestState, `Send` across an ask).

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};

use super::slots::{Slot, joined};
use super::{Emitter, at_binding, ident_name};
use crate::tool::scope::BindingId;

impl Emitter<'_> {
    /// The bounds on the slots, each reported once, at the author's variable.
    ///
    /// A kept value is written and read through `__mrtr_keep` and `__mrtr_restore`, whose
    /// bound is one trait: rustc reports a type that cannot be kept once, naming it, instead of
    /// each unmet part (`Serialize`, `Deserialize`, at any depth of the type). A value living
    /// in a slot must be `Send`, as the round's future is: an error naming the value, where
    /// rustc would report the future on the attribute. Each trait has a second impl that never
    /// applies, so that rustc reports the unmet bound itself instead of its parts. Each slot's
    /// `Send` check is a block of its own, so its items cannot meet the author's.
    pub(super) fn checks(&self, crossing: &BTreeSet<BindingId>) -> TokenStream {
        let mut checks = TokenStream::new();
        if !self.program.sites.is_empty() {
            checks.extend(quote! {
                #[allow(dead_code)]
                trait __MrtrNeverImplemented {}
                #[diagnostic::on_unimplemented(
                    message = "`{Self}` cannot be kept in requestState across an `ask!`",
                    label = "this value is used after an `ask!`, so it is kept in requestState",
                    note = "kept values must implement Serialize and DeserializeOwned (derive them, forms and choices included) and cannot be references (except a `&'static str` that is one of the tool's string literals); or create the value again after the ask, or reach it through the context (`cx.state()`)"
                )]
                trait KeptAcrossAsk<M>: __mrtr_private::Kept {}
                impl<T: __mrtr_private::Kept> KeptAcrossAsk<()> for T {}
                impl<T: __mrtr_private::Kept + __MrtrNeverImplemented> KeptAcrossAsk<u8> for T {}
                fn __mrtr_keep<M, T: KeptAcrossAsk<M>>(
                    frame: &mut __mrtr_private::Frame,
                    name: &str,
                    slot: &::core::option::Option<T>,
                ) -> ::core::result::Result<(), __mrtr_private::StepError> {
                    __mrtr_private::keep(frame, name, slot)
                }
                fn __mrtr_restore<M, T: KeptAcrossAsk<M>>(
                    frame: &__mrtr_private::Frame,
                    name: &str,
                    literals: &'static [&'static str],
                ) -> ::core::result::Result<::core::option::Option<T>, __mrtr_private::StepError> {
                    let value = __mrtr_private::restore(frame, name, literals)?;
                    // With mrtr's `testing` feature, fails when the value does not encode
                    // back to its bytes; otherwise nothing.
                    __mrtr_private::check_kept_round_trip(frame, name, &value);
                    ::core::result::Result::Ok(value)
                }
            });
        }
        for id in crossing {
            let binding = &self.program.bindings[*id].ident;
            let (span, slot_span) = at_binding(binding);
            for Slot { ident, field, .. } in self.slots(*id) {
                let slot = Ident::new(&ident.to_string(), slot_span);
                let name = match &field {
                    None => ident_name(binding),
                    Some(path) => format!("{}.{}", ident_name(binding), joined(path, ".")),
                };
                let message = format!(
                    "`{name}` cannot live across an `ask!`: its type `{{Self}}` is not `Send`"
                );
                // Called where it never runs: the slot's type is checked, not its value.
                let send_check = Ident::new("send_across_ask", span);
                let call = quote_spanned!(span=> #slot = #send_check(););
                checks.extend(quote! {
                    {
                        trait NeverImplemented {}
                        #[diagnostic::on_unimplemented(
                            message = #message,
                            label = "this value lives across an `ask!`",
                            note = "a tool's rounds may run on any thread, so a value that lives across an `ask!` must be `Send`: use `Arc` instead of `Rc` and `std::sync::Mutex` instead of `RefCell`, or create the value again after the ask"
                        )]
                        trait SendAcrossAsk<M> {}
                        impl<T: ::core::marker::Send> SendAcrossAsk<()> for T {}
                        impl<T: ::core::marker::Send + NeverImplemented> SendAcrossAsk<u8> for T {}
                        fn send_across_ask<M, T: SendAcrossAsk<M>>() -> ::core::option::Option<T> {
                            ::core::option::Option::None
                        }
                        #[allow(unreachable_code, unused_assignments)]
                        if false {
                            #call
                        }
                    }
                });
            }
        }
        checks
    }
}
