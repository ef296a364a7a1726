//! The machine's flow as a Mermaid flowchart: the start, each `ask!` (its keys and kinds) and
//! the end, with an edge wherever the code can go from one to the next without asking in
//! between. Loops that ask show as cycles, branches as several edges out of one point.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;

use super::ir::{BlockId, Code, Flow, Node, Program, SiteId};

/// Where the flow can be: the start, an ask site, the end.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Point {
    Start,
    Ask(SiteId),
    End,
}

/// The Mermaid text of `program`'s flow, for the tool (prompt, resource) called `name`.
pub(crate) fn mermaid(program: &Program, name: &str) -> String {
    let mut text = String::from("flowchart TD\n");
    let _ = writeln!(text, "    start([\"{}\"])", escape(name));
    for (site, data) in program.sites.iter().enumerate() {
        let questions: Vec<String> = data
            .questions
            .iter()
            .map(|(key, _, request)| match kind(&request.to_token_stream()) {
                Some(kind) => format!("{key}: {kind}"),
                None => key.clone(),
            })
            .collect();
        let rechecks = data
            .questions
            .iter()
            .all(|(_, _, request)| kind(&request.to_token_stream()) == Some("recheck"));
        let handoff = data
            .questions
            .iter()
            .any(|(_, _, request)| kind(&request.to_token_stream()) == Some("hand-off"));
        let label = match rechecks {
            _ if handoff => "hand-off: a task from here".to_owned(),
            true => "recheck".to_owned(),
            false => format!("ask {}", questions.join(", ")),
        };
        let _ = writeln!(text, "    ask{site}[/\"{}\"/]", escape(&label));
    }
    text.push_str("    done([\"done\"])\n");
    let points = std::iter::once((Point::Start, 0)).chain(
        program
            .sites
            .iter()
            .enumerate()
            .map(|(site, data)| (Point::Ask(site), data.resume)),
    );
    for (from, entry) in points {
        for to in reachable(program, entry) {
            let _ = writeln!(text, "    {} --> {}", node_id(from), node_id(to));
        }
    }
    text
}

fn node_id(point: Point) -> String {
    match point {
        Point::Start => "start".to_owned(),
        Point::Ask(site) => format!("ask{site}"),
        Point::End => "done".to_owned(),
    }
}

/// The asks and the end that the code starting at `entry` reaches before asking again.
fn reachable(program: &Program, entry: BlockId) -> BTreeSet<Point> {
    let mut found = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![entry];
    while let Some(block) = stack.pop() {
        if !seen.insert(block) {
            continue;
        }
        let nodes = &program.blocks[block].nodes;
        let mut walk = Walk {
            program,
            found: &mut found,
            next: &mut stack,
        };
        walk.nodes(nodes);
        // A block that does not end by jumping or asking ends the body.
        let ends = match nodes.last() {
            Some(Node::Jump { .. } | Node::Suspend { .. }) => false,
            Some(Node::Branch(branch)) => branch.dest.join().is_none(),
            _ => true,
        };
        if ends {
            found.insert(Point::End);
        }
    }
    found
}

struct Walk<'a> {
    program: &'a Program,
    found: &'a mut BTreeSet<Point>,
    next: &'a mut Vec<BlockId>,
}

impl Walk<'_> {
    fn nodes(&mut self, nodes: &[Node]) {
        for node in nodes {
            match node {
                Node::Stmt(code) | Node::Tail(code) => self.code(code),
                Node::Let { init, diverge, .. } => {
                    self.code(init);
                    if let Some(diverge) = diverge {
                        self.code(diverge);
                    }
                }
                Node::Jump { target, .. } => self.next.push(*target),
                Node::Suspend { site, .. } => {
                    self.found.insert(Point::Ask(*site));
                }
                Node::Branch(branch) => {
                    match branch.dest {
                        Flow::Return => {
                            self.found.insert(Point::End);
                        }
                        dest => self.next.extend(dest.join()),
                    }
                    for arm in &branch.arms {
                        self.nodes(&arm.nodes);
                    }
                }
            }
        }
    }

    /// The author's code: its `break`/`continue` out of a loop that asks, and its `return`s.
    fn code(&mut self, code: &Code) {
        for hole in &code.holes {
            self.next.push(self.program.holes[*hole].target);
        }
        if mentions(&code.tokens, "return") {
            self.found.insert(Point::End);
        }
    }
}

fn mentions(tokens: &TokenStream, word: &str) -> bool {
    tokens.clone().into_iter().any(|token| match token {
        TokenTree::Ident(ident) => ident == word,
        TokenTree::Group(group) => mentions(&group.stream(), word),
        _ => false,
    })
}

/// What a question asks for, read from the function that builds it (`elicit::form::<T>(..)`
/// is a form, `sample(..)` a sampling request, ..).
fn kind(request: &TokenStream) -> Option<&'static str> {
    let kinds = [
        ("form", "form"),
        ("choice", "choice"),
        ("choices", "choices"),
        ("url", "url"),
        ("sample", "sampling"),
        ("roots", "roots"),
        ("recheck", "recheck"),
        ("handoff", "hand-off"),
    ];
    request.clone().into_iter().find_map(|token| match token {
        TokenTree::Ident(ident) => kinds
            .iter()
            .find(|(function, _)| ident == function)
            .map(|(_, kind)| *kind),
        TokenTree::Group(group) if group.delimiter() != proc_macro2::Delimiter::Parenthesis => {
            kind(&group.stream())
        }
        _ => None,
    })
}

/// Mermaid labels are quoted: a quote inside is written as an entity.
fn escape(label: &str) -> String {
    label.replace('"', "#quot;")
}
