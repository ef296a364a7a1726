//! Resume points across builds. A state names the point it resumes at by an id derived from
//! the source's structure: the ask's keys and the constructs around it (`if`/`else`, a `match`
//! arm by its pattern, a loop), never from positions, line numbers or the pc. Another build
//! resumes the state wherever it has a point with the same id; the values kept there are
//! checked separately, by type, at run time.

use proc_macro2::TokenStream;
use quote::quote;

use super::canonical::hash;
use super::ir::Program;

/// A resume point as the machine lists it.
pub(crate) struct Identity {
    pub(crate) pc: u32,
    pub(crate) id: u32,
    /// For people: `ask offer in if > match Some ( x )`.
    pub(crate) label: String,
}

/// The identities of the program's resume points, in site order. Two asks with the same keys
/// in the same constructs are told apart by their order there; ids that collide anyway are
/// refused by `check`.
pub(crate) fn identities(program: &Program) -> Vec<Identity> {
    let mut seen: Vec<(Vec<String>, Vec<&str>)> = Vec::new();
    let mut identities: Vec<Identity> = Vec::new();
    for site in &program.sites {
        let keys: Vec<&str> = site
            .questions
            .iter()
            .map(|(key, _, _)| key.as_str())
            .collect();
        let place = (site.path.clone(), keys.clone());
        let occurrence = seen.iter().filter(|other| **other == place).count();
        seen.push(place);
        let asks = match keys.as_slice() {
            [""] | [] => "recheck".to_owned(),
            keys => format!("ask {}", keys.join(", ")),
        };
        let mut label = asks.clone();
        if !site.path.is_empty() {
            label.push_str(&format!(" in {}", site.path.join(" > ")));
        }
        if occurrence > 0 {
            label.push_str(&format!(" (#{})", occurrence + 1));
        }
        let source = format!("{}\n{asks}\n{occurrence}", site.path.join("\n"));
        let id = hash(&source);
        identities.push(Identity {
            pc: site.resume as u32,
            id,
            label,
        });
    }
    identities
}

/// `Machine::resume_points` of a generated machine.
pub(crate) fn table(identities: &[Identity], krate: &syn::Path) -> TokenStream {
    let points = identities.iter().map(|Identity { pc, id, label }| {
        quote!(#krate::__private::ResumePoint { pc: #pc, id: #id, label: #label })
    });
    quote! {
        fn resume_points(&self) -> &'static [#krate::__private::ResumePoint] {
            const POINTS: &[#krate::__private::ResumePoint] = &[#(#points),*];
            POINTS
        }
    }
}
