//! Compile-time diagnostics of `#[mrtr::tool]` and `ask!`, one rejected construct per file.

#[test]
fn every_tool_diagnostic_has_a_compile_fail_case() {
    trybuild::TestCases::new().compile_fail("tests/ui/tool/*.rs");
}
