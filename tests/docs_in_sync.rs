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
