// The `durable_job` fixture that scripts/tasks_multi_instance.sh drives, waiting to be added to
// examples/conformance_server.rs (in its own block before `main`, registered with
// `.tool(durable_job)`) once task support (`#[mrtr::tool(task = ..)]`, `ask!(handoff())`) is
// on main; the script also needs the server to read `MRTR_TASKS_PER_PRINCIPAL` into
// `TaskOptions::per_principal`. Not compiled from here.

// ---------------------------------------------------------------------------------------------
// Not a suite fixture: the task scripts/tasks_multi_instance.sh drives across three instances
// (kept apart from the suite's fixtures; that script owns it).

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct DurableJobArgs {
    /// The job's id, chosen by the client: the progress lines name it.
    job: String,
    /// How long the last step works, in milliseconds (at most 10,000).
    #[serde(default)]
    work_ms: u64,
}

/// A job for the multi-instance harness: asks who it is for (an MRTR round), hands off, asks
/// for a go-ahead inside the task, then works for `work_ms`. It prints `job-started` and
/// `job-completed` lines naming the job and this instance's `PORT`, which the harness counts:
/// two lines for one job mean a step ran twice.
#[mrtr::tool(task = "required")]
async fn durable_job(args: DurableJobArgs) -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("Who is the job for?"));
    let name = user_name.accepted()?.name;
    ask!(handoff());
    let go_ahead = ask!(elicit::form::<Confirm>("Start the job?"));
    if !go_ahead.accepted()?.ok {
        return Ok(format!("job {} not started for {name}", args.job));
    }
    let port = std::env::var("PORT").unwrap_or_default();
    eprintln!("job-started {} on {port}", args.job);
    tokio::time::sleep(std::time::Duration::from_millis(args.work_ms.min(10_000))).await;
    eprintln!("job-completed {} on {port}", args.job);
    Ok(format!("job {} done for {name}", args.job))
}
