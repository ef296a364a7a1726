//! Each task step runs in a `mrtr.task` span (task id, tool, step number, outcome), and the
//! tool's drawn flow shows its hand-off point.

mod support;

use mrtr::machine::Machine;
use mrtr::testing::{Harness, Script, answer};
use mrtr::{Form, ToolError, elicit, handoff};
use serde_json::json;
use support::Sink;
use tracing_subscriber::fmt::format::FmtSpan;

#[derive(Form)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// Hands off at once, then asks inside the task.
#[mrtr::tool(task = "optional")]
async fn apply() -> Result<String, ToolError> {
    ask!(handoff());
    let go = ask!(elicit::form::<Confirm>("Go ahead?")).accepted()?;
    Ok(format!("applied: {}", go.ok))
}

#[tokio::test]
async fn every_task_step_has_a_span_with_its_outcome() {
    let sink = Sink::default();
    let writer = sink.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_span_events(FmtSpan::CLOSE)
        .finish();
    // The harness's runtime is this thread's (current-thread): the steps it spawns see it.
    let _guard = tracing::subscriber::set_default(subscriber);

    let harness = Harness::tool(apply);
    let script = Script::new().answer("go", answer::accept(json!({"ok": true})));
    let run = harness.run_task(json!({}), &script).await;
    assert_eq!(run.text(), "applied: true");
    let id = run.task_id().unwrap().to_owned();

    let steps: Vec<String> = sink
        .take()
        .lines()
        .filter(|line| line.contains("mrtr.task") && line.contains("close"))
        .map(str::to_owned)
        .collect();
    assert_eq!(steps.len(), 2, "{steps:#?}");
    for line in &steps {
        assert!(line.contains(&format!("task={id}")), "{line}");
        assert!(line.contains("tool=apply"), "{line}");
    }
    assert!(
        steps[0].contains("step=1") && steps[0].contains(r#"outcome="input_required""#),
        "{}",
        steps[0]
    );
    assert!(
        steps[1].contains("step=2") && steps[1].contains(r#"outcome="completed""#),
        "{}",
        steps[1]
    );
}

#[test]
fn the_flow_shows_the_hand_off() {
    let flow = apply
        .flowchart()
        .expect("a generated machine draws its flow");
    assert!(flow.contains("hand-off: a task from here"), "{flow}");
    assert!(flow.contains("ask go: form"), "{flow}");
}
