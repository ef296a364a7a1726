//! The rules of `#[mrtr::tool]` are written once for the README and once for rustdoc (the
//! attribute's documentation, `mrtr-macros/doc/tool.md`): the two copies must say the same.

/// The README's section "The rules of the state machine", without its heading.
fn readme_rules(readme: &str) -> &str {
    let heading = "## The rules of the state machine\n";
    let start = readme
        .find(heading)
        .expect("the README has the rules section")
        + heading.len();
    let end = start
        + readme[start..]
            .find("\n#")
            .expect("another heading follows the rules");
    readme[start..end].trim()
}

/// The rules in the attribute's documentation, between its markers.
fn doc_rules(doc: &str) -> &str {
    let begin = doc.find("<!-- rules: begin").expect("the begin marker");
    let start = begin + doc[begin..].find("-->").expect("the marker closes") + "-->".len();
    let end = doc.find("<!-- rules: end -->").expect("the end marker");
    doc[start..end].trim()
}

#[test]
fn the_attributes_rustdoc_states_the_readmes_rules() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let doc = std::fs::read_to_string(format!("{root}/mrtr-macros/doc/tool.md")).unwrap();
    let (readme, doc) = (readme_rules(&readme), doc_rules(&doc));
    assert!(readme.starts_with("The contract:"), "{readme}");
    if readme != doc {
        let line = readme
            .lines()
            .zip(doc.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| readme.lines().count().min(doc.lines().count()));
        panic!(
            "mrtr-macros/doc/tool.md's rules differ from the README's, from line {} of the \
             section:\n  README: {:?}\n  doc:    {:?}\nCopy the README's section between the markers.",
            line + 1,
            readme.lines().nth(line),
            doc.lines().nth(line)
        );
    }
}

/// The names `pub use` brings into scope in `source`'s crate root (up to its hidden `__private`
/// module): the last segment of each path, renamed ones by their new name.
fn root_reexports(source: &str) -> Vec<String> {
    let public = source.split("pub mod __private").next().unwrap_or(source);
    let mut names = Vec::new();
    for statement in public.split("pub use ").skip(1) {
        let statement = statement.split(';').next().unwrap_or_default();
        let items = match (statement.find('{'), statement.rfind('}')) {
            (Some(open), Some(close)) => &statement[open + 1..close],
            _ => statement,
        };
        for item in items.split(',') {
            let name = item.rsplit(" as ").next().unwrap_or(item);
            let name = name.rsplit("::").next().unwrap_or(name).trim();
            if !name.is_empty() {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// Whether `text` names `word` as a whole identifier (not inside a longer one).
fn names_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[test]
fn the_readmes_api_overview_lists_every_name_at_the_crate_root() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let runtime = std::fs::read_to_string(format!("{root}/mrtr-runtime/src/lib.rs")).unwrap();
    let start = readme
        .find("## API overview")
        .expect("the README has its API overview");
    let end = start + readme[start..].find("\n## ").expect("a section follows");
    let overview = &readme[start..end];
    let names = root_reexports(&runtime);
    assert!(names.len() > 40, "the re-exports were read: {names:?}");
    let missing: Vec<&String> = names
        .iter()
        .filter(|name| !names_word(overview, name))
        .collect();
    assert!(
        missing.is_empty(),
        "the crate root re-exports names the README's API overview does not list: {missing:?}"
    );
}
