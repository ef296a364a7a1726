//! Where a value lives between blocks: its slot (or a slot per kept field path), and the
//! code that moves it in and takes it back.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use super::{Emitter, ident_name};
use crate::tool::fields::FieldPath;
use crate::tool::scope::BindingId;

/// One slot of a binding: the whole value, or one field of a value kept field by field.
pub(super) struct Slot {
    pub(super) ident: Ident,
    /// The name in the frame (`name`, `name.field` or `name.field.inner`).
    pub(super) frame: String,
    pub(super) field: Option<FieldPath>,
}

impl Emitter<'_> {
    /// The slot's variable: numbered by the binding, so that no two slots share a name
    /// whatever the author's names are (a second `page`, kept as `page.2`, and a `page_2`).
    pub(super) fn slot(&self, id: BindingId) -> Ident {
        let name = ident_name(&self.program.bindings[id].ident);
        let name = name.trim_start_matches("__mrtr_");
        format_ident!("__mrtr_slot_{}_{}", id, name, span = Span::mixed_site())
    }

    /// The slots a binding lives in between blocks.
    pub(super) fn slots(&self, id: BindingId) -> Vec<Slot> {
        let (ident, frame) = (self.slot(id), self.frame_name(id));
        match self.fields.get(&id) {
            None => vec![Slot {
                ident,
                frame,
                field: None,
            }],
            Some(paths) => paths
                .iter()
                .map(|path| Slot {
                    ident: format_ident!(
                        "{}__{}",
                        ident,
                        joined(path, "__"),
                        span = Span::mixed_site()
                    ),
                    frame: format!("{frame}.{}", joined(path, ".")),
                    field: Some(path.clone()),
                })
                .collect(),
        }
    }

    fn frame_name(&self, id: BindingId) -> String {
        self.frame_names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| ident_name(&self.program.bindings[id].ident))
    }

    /// The struct a binding kept field by field is rebuilt as, generic over its fields' types;
    /// a field split further (`prefix`, non-empty) is rebuilt as a struct of its own.
    fn fields_struct(&self, id: BindingId, prefix: &[Ident]) -> Ident {
        let slot = self.slot(id).to_string();
        let name = slot.trim_start_matches("__mrtr_slot_");
        let nested: String = prefix
            .iter()
            .map(|field| format!("__{}", ident_name(field)))
            .collect();
        format_ident!(
            "__mrtr_fields_{}{}",
            name,
            nested,
            span = Span::mixed_site()
        )
    }

    /// The rebuilt structs of a binding kept field by field: one for the value, one for each
    /// field split further.
    pub(super) fn fields_structs(&self, id: BindingId, paths: &[FieldPath]) -> TokenStream {
        split_fields(paths)
            .into_iter()
            .map(|(prefix, fields)| {
                let name = self.fields_struct(id, &prefix);
                let types: Vec<Ident> = (0..fields.len())
                    .map(|index| format_ident!("__MrtrField{}", index))
                    .collect();
                quote! {
                    #[allow(non_camel_case_types)]
                    struct #name<#(#types),*> { #(#fields: #types),* }
                }
            })
            .collect()
    }

    /// The value rebuilt from its slots under `prefix`: `S { a: .., item: S_item { .. } }`
    /// (`structs` is [`split_fields`] of the kept paths).
    pub(super) fn rebuild(
        &self,
        id: BindingId,
        prefix: &[Ident],
        structs: &[(Vec<Ident>, Vec<Ident>)],
        slots: &[Slot],
    ) -> TokenStream {
        let fields = structs
            .iter()
            .find(|(split, _)| split.as_slice() == prefix)
            .map_or(&[][..], |(_, fields)| fields.as_slice());
        let values = fields.iter().map(|field| {
            let mut path = prefix.to_vec();
            path.push(field.clone());
            match slots.iter().find(|slot| slot.field.as_ref() == Some(&path)) {
                Some(Slot { ident, frame, .. }) => {
                    quote!(__mrtr_try!(__mrtr_private::unslot(&mut #ident, #frame)))
                }
                None => self.rebuild(id, &path, structs, slots),
            }
        });
        let name = self.fields_struct(id, prefix);
        quote!(#name { #(#fields: #values),* })
    }

    /// Moves a held value into its slots: `slot = Some(value)`, or a slot per kept field.
    pub(super) fn store(&self, id: BindingId) -> TokenStream {
        let ident = &self.program.bindings[id].ident;
        self.slots(id)
            .into_iter()
            .map(
                |Slot {
                     ident: slot, field, ..
                 }| match field {
                    None => quote!(#slot = ::core::option::Option::Some(#ident);),
                    Some(path) => quote!(#slot = ::core::option::Option::Some(#ident #(.#path)*);),
                },
            )
            .collect()
    }

    /// Takes a value out of its slot into a local of its own name.
    pub(super) fn take(&self, id: BindingId) -> TokenStream {
        let binding = &self.program.bindings[id];
        let ident = &binding.ident;
        let mutability = binding.mutable.then(|| quote!(mut));
        let unslot = |Slot { ident, frame, .. }: &Slot| {
            quote!(__mrtr_try!(__mrtr_private::unslot(&mut #ident, #frame)))
        };
        let slots = self.slots(id);
        let value = match self.fields.get(&id) {
            None => unslot(&slots[0]),
            Some(paths) => self.rebuild(id, &[], &split_fields(paths), &slots),
        };
        quote! {
            #[allow(unused_mut, unused_variables)]
            let #mutability #ident = #value;
        }
    }

    /// Moves held values into their slots, each on its own (the plan says which).
    pub(super) fn move_to_slots(&self, ids: &[BindingId]) -> TokenStream {
        ids.iter()
            .map(|id| {
                let store = self.store(*id);
                quote!(#[allow(unused_assignments, unreachable_code)] { #store })
            })
            .collect()
    }
}

/// A field path's names joined by `separator`.
pub(super) fn joined(path: &[Ident], separator: &str) -> String {
    path.iter()
        .map(ident_name)
        .collect::<Vec<_>>()
        .join(separator)
}

/// The structs a value kept along `paths` is rebuilt from: for the value (prefix `[]`) and for
/// each field split further, its prefix and its fields in the order first read.
fn split_fields(paths: &[FieldPath]) -> Vec<(Vec<Ident>, Vec<Ident>)> {
    let mut structs: Vec<(Vec<Ident>, Vec<Ident>)> = Vec::new();
    for path in paths {
        for depth in 0..path.len() {
            let (prefix, field) = (&path[..depth], &path[depth]);
            match structs
                .iter_mut()
                .find(|(known, _)| known.as_slice() == prefix)
            {
                Some((_, fields)) if fields.contains(field) => {}
                Some((_, fields)) => fields.push(field.clone()),
                None => structs.push((prefix.to_vec(), vec![field.clone()])),
            }
        }
    }
    structs
}
