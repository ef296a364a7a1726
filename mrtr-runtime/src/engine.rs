//! One round of a flow: verify the state, authorize, take the answers that count, run the
//! machine to its next suspension, seal what it keeps.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::author::context::{Access, AppState, Authorize, Context, Denied};
use crate::capabilities::{ClientCapabilities, InputKind, required_capabilities};
use crate::machine::input::InputRequest;
use crate::machine::{Answers, Machine, Outcome, Step, StepError};
use crate::protocol::RpcError;
use crate::server::{RoundMethod, RoundRequest};
use crate::single_use::{Redemption, ReplayStore};
use crate::state::frame::Frame;
use crate::state::known_forms::KnownForms;
use crate::state::saved::{self, PendingQuestion, SavedState};
use crate::telemetry::{self, Ending, ErrorType, OpenSpan};
use crate::token::{Binding, Claims, Flow, InvalidState, StateCodec};

/// What every round needs from the server.
pub(crate) struct Environment {
    pub(crate) codec: StateCodec,
    pub(crate) state: Arc<AppState>,
    pub(crate) authorizer: Option<Arc<dyn Authorize>>,
    pub(crate) replays: Arc<dyn ReplayStore>,
    /// The forms the server's machines ask by type.
    pub(crate) forms: KnownForms,
}

/// One request of a flow, already checked for shape by the server, with the server's defaults
/// for its target.
pub(crate) struct RoundInput<'a> {
    /// The request (its arguments taken into `arguments`).
    pub(crate) request: RoundRequest<'a>,
    /// The arguments the machine reads: the request's, or a resource URI's variables.
    pub(crate) arguments: &'a Value,
    pub(crate) max_rounds: u32,
    pub(crate) single_use: bool,
    /// At the hand-off point the round ends with [`RoundEnd::HandOff`] (a task-capable tool,
    /// a client that declared the tasks extension); otherwise it goes on.
    pub(crate) to_task: bool,
    /// With `to_task`: the tool has no hand-off point, so a first round hands off before the
    /// body runs.
    pub(crate) task_at_start: bool,
}

/// How a round ended, before the server maps it onto the method's result or error.
#[derive(Debug)]
pub(crate) enum RoundEnd {
    /// The machine's final result.
    Complete(Value),
    /// The author's code failed.
    Failed(String),
    /// `inputRequests` (possibly none) and the sealed state.
    InputRequired {
        requests: Vec<(String, InputRequest)>,
        state: String,
    },
    /// The flow would need more `input_required` rounds than allowed.
    TooManyRounds(u32),
    /// The authorization hook refused the round.
    Denied(Denied),
    /// The arguments do not fit the machine.
    BadArguments(String),
    /// The tool reached its hand-off point: the rest runs as a task.
    HandOff(HandedOff),
}

/// A flow at its hand-off point, to be stored as a task.
#[derive(Debug)]
pub(crate) struct HandedOff {
    pub(crate) state: SavedState,
    pub(crate) flow: crate::token::FlowId,
    pub(crate) round: u32,
}

/// Runs one round in its span (see [`crate::telemetry`]): method, target, round, flow id and
/// resume point (never the token), then the outcome and the duration.
pub(crate) async fn run_round(
    env: &Environment,
    machine: &dyn Machine,
    input: RoundInput<'_>,
) -> Result<RoundEnd, RpcError> {
    let request = &input.request;
    let span = OpenSpan::open(request.method.as_str(), request.target, request.trace);
    let is_tool = request.method == RoundMethod::CallTool;
    let ended =
        tracing::Instrument::instrument(round(env, machine, input), span.span().clone()).await;
    span.close(|| telemetry_of(&ended, is_tool));
    ended
}

/// How the round ended, for its span and its duration metric. Refusals inside a round are tool
/// errors for a tool and `-32602` for a prompt or a resource (see `server::round`).
fn telemetry_of(ended: &Result<RoundEnd, RpcError>, is_tool: bool) -> Ending {
    let refused = if is_tool {
        ErrorType::ToolError
    } else {
        ErrorType::JsonRpc(crate::protocol::codes::INVALID_PARAMS)
    };
    let (outcome, reason, error) = match ended {
        Ok(RoundEnd::Complete(_)) => ("complete", None, None),
        Ok(RoundEnd::Failed(message)) => (
            "tool_error",
            Some(message.clone()),
            Some(ErrorType::ToolError),
        ),
        Ok(RoundEnd::InputRequired { requests, .. }) => {
            let keys: Vec<&str> = requests.iter().map(|(key, _)| key.as_str()).collect();
            return Ending {
                outcome: "input_required",
                keys: Some(keys.join(",")),
                reason: None,
                error: None,
            };
        }
        Ok(RoundEnd::TooManyRounds(cap)) => (
            "refused",
            Some(format!("more than {cap} rounds")),
            Some(refused),
        ),
        Ok(RoundEnd::Denied(_)) => ("refused", Some("not authorized".to_owned()), Some(refused)),
        Ok(RoundEnd::BadArguments(reason)) => (
            "refused",
            Some(format!("invalid arguments: {reason}")),
            Some(refused),
        ),
        Ok(RoundEnd::HandOff(_)) => ("task", None, None),
        // An invalid state's precise reason is logged under `mrtr::state`.
        Err(error) => (
            "refused",
            Some(format!("{}: {}", error.code, error.message)),
            Some(ErrorType::JsonRpc(error.code)),
        ),
    };
    Ending {
        outcome,
        keys: None,
        reason,
        error,
    }
}

async fn round(
    env: &Environment,
    machine: &dyn Machine,
    input: RoundInput<'_>,
) -> Result<RoundEnd, RpcError> {
    let binding = Binding::new(
        input.request.method.as_str(),
        input.request.target,
        Some(input.arguments),
    )
    .principal(input.request.principal);
    let fingerprint = machine.fingerprint();
    // Verification comes before any code of the author or the host runs.
    let (flow, mut state, resumed, claims) = match input.request.request_state {
        Some(token) => {
            let opened = env.codec.open_state(token, &binding, fingerprint)?;
            let Some(state) = SavedState::decode(&opened.payload, &env.forms) else {
                match saved::unknown_form(&opened.payload, &env.forms) {
                    Some(form) => tracing::warn!(
                        target: "mrtr::state",
                        tool = input.request.target,
                        form = %format_args!("{form:016x}"),
                        "rejected requestState: the form it waits for changed since the state was \
                         minted (the form type's fields or descriptions)"
                    ),
                    None => {
                        tracing::warn!(target: "mrtr::state", reason = "the state does not decode", "rejected requestState")
                    }
                }
                return Err(RpcError::invalid_params(InvalidState::MESSAGE));
            };
            let flow = opened.claims.flow().next_round();
            (flow, state, true, Some(opened.claims))
        }
        None => {
            let fresh = SavedState {
                point: 0,
                kept_types: 0,
                frame: Frame::new(),
                pending: BTreeMap::new(),
                steps: 0,
            };
            (env.codec.start_flow(fingerprint), fresh, false, None)
        }
    };
    let mut at = Place::START;
    if resumed {
        at = Place::of_state(machine, state.point).ok_or_else(|| {
            tracing::warn!(
                target: "mrtr::state",
                tool = input.request.target,
                resume_point = %format_args!("{:08x}", state.point),
                "rejected requestState: its resume point does not exist in this build (an ask \
                 key or the constructs around the ask changed)"
            );
            RpcError::invalid_params(InvalidState::MESSAGE)
        })?;
    }
    telemetry::record_flow(&flow, at);
    // Authorization before redemption: a denied round must not spend a single-use state.
    if let Some(authorizer) = &env.authorizer {
        let access = Access {
            method: input.request.method.as_str(),
            target: input.request.target,
            arguments: input.arguments,
            principal: input.request.principal,
            round: flow.round(),
        };
        if let Err(denied) = authorizer.authorize(access).await {
            return Ok(RoundEnd::Denied(denied));
        }
    }
    if input.single_use
        && let Some(claims) = &claims
    {
        consume(env, claims, input.request.principal).await?;
    }

    let cx = Context::new(
        Arc::clone(&env.state),
        input.request.capabilities,
        input.request.principal.map(str::to_owned),
        flow.round(),
        flow.id(),
        state.steps,
    );
    // A task-capable tool without a hand-off point hands off before its body runs.
    if input.to_task && input.task_at_start && !resumed {
        return Ok(RoundEnd::HandOff(HandedOff {
            state,
            flow: flow.id(),
            round: flow.round(),
        }));
    }
    let run = Run {
        machine,
        target: input.request.target,
        arguments: input.arguments,
        cx: &cx,
    };
    // Answers count once, for the first suspension this round meets: the one restored from
    // the state or, in a round without state, the first one the machine reaches.
    let mut responses = input.request.input_responses;
    let mut at_suspension = resumed;
    let mut sent_before = resumed;
    let mut passed_handoff = false;
    loop {
        let mut answers = BTreeMap::new();
        // A hand-off passed in this round asked nothing: the answers wait for the next ask.
        if at_suspension && !std::mem::take(&mut passed_handoff) {
            let taken = take_answers(
                &mut state.pending,
                responses.take().unwrap_or_default(),
                sent_before,
            );
            sent_before = false;
            match taken {
                Ok(taken) => answers = taken,
                Err(reasks) => {
                    check_capabilities(
                        cx.capabilities(),
                        reasks.iter().map(|(_, request)| request),
                    )?;
                    return suspend(env, &flow, &binding, state, Some(reasks), input.max_rounds);
                }
            }
        }
        match advance(&run, &mut state, &mut at, answers).await? {
            Reached::Ended(ended) => return Ok(ended.into()),
            Reached::Suspended { handoff: true } if input.to_task => {
                return Ok(RoundEnd::HandOff(HandedOff {
                    state,
                    flow: flow.id(),
                    round: flow.round(),
                }));
            }
            // Any other client goes on at once, in this round.
            Reached::Suspended { handoff: true } => {
                at_suspension = true;
                passed_handoff = true;
                continue;
            }
            Reached::Suspended { handoff: false } => {}
        }
        at_suspension = true;
        if responses.is_none() || state.pending.is_empty() {
            return suspend(env, &flow, &binding, state, None, input.max_rounds);
        }
    }
}

/// A machine and what every run of it in one request sees.
pub(crate) struct Run<'a> {
    pub(crate) machine: &'a dyn Machine,
    pub(crate) target: &'a str,
    pub(crate) arguments: &'a Value,
    pub(crate) cx: &'a Context,
}

/// How the body ended.
#[derive(Debug)]
pub(crate) enum Ended {
    /// Its final result.
    Complete(Value),
    /// The author's code failed (or asked a question not fit to send).
    Failed(String),
    /// The arguments do not fit the machine.
    BadArguments(String),
}

impl From<Ended> for RoundEnd {
    fn from(ended: Ended) -> Self {
        match ended {
            Ended::Complete(result) => RoundEnd::Complete(result),
            Ended::Failed(message) => RoundEnd::Failed(message),
            Ended::BadArguments(reason) => RoundEnd::BadArguments(reason),
        }
    }
}

/// Where one run of the machine stopped.
#[derive(Debug)]
pub(crate) enum Reached {
    /// The body ended.
    Ended(Ended),
    /// A suspension, now recorded in the state: its resume point, frame and questions.
    Suspended {
        /// It is the tool's hand-off point.
        handoff: bool,
    },
}

/// The road every round and every task step shares: runs the machine from `at` with the
/// answers that count to its next suspension or its end, checks the questions it asks (fit to
/// send, of kinds the client declared), and records the suspension in `state`.
pub(crate) async fn advance(
    run: &Run<'_>,
    state: &mut SavedState,
    at: &mut Place,
    answers: BTreeMap<String, Value>,
) -> Result<Reached, RpcError> {
    let step = Step {
        target: run.target,
        arguments: run.arguments,
        cx: run.cx,
        pc: at.pc,
        frame: std::mem::take(&mut state.frame),
        kept_types: state.kept_types,
        answers: Answers::new(answers),
    };
    let outcome = run.machine.step(step).await;
    state.steps = state.steps.saturating_add(1);
    run.cx.set_steps(state.steps);
    let suspension = match outcome {
        Ok(Outcome::Complete(result)) => return Ok(Reached::Ended(Ended::Complete(result))),
        Ok(Outcome::Failed(message)) => return Ok(Reached::Ended(Ended::Failed(message))),
        Ok(Outcome::Suspend(suspension)) => suspension,
        Err(StepError::Arguments(reason)) => {
            return Ok(Reached::Ended(Ended::BadArguments(reason)));
        }
        Err(StepError::Frame(reason)) => {
            tracing::warn!(target: "mrtr::state", tool = run.target, resume_point = %at, %reason, "rejected requestState: kept values do not decode");
            return Err(RpcError::invalid_params(InvalidState::MESSAGE));
        }
        Err(StepError::Changed(reason)) => {
            tracing::warn!(target: "mrtr::state", tool = run.target, resume_point = %at, %reason, "rejected requestState: minted by a build that differs at its resume point");
            return Err(RpcError::invalid_params(InvalidState::MESSAGE));
        }
        Err(error) => {
            tracing::error!(target: "mrtr::engine", %error, target = run.target, "machine failed");
            return Err(RpcError::internal(error.to_string()));
        }
    };

    // A question that is not fit to send (an `elicit::url` that is not a URL) is the
    // author's bug: it ends the flow as their error and never reaches the wire.
    if let Some(reason) = suspension
        .questions
        .iter()
        .find_map(|(key, request)| request.check().err().map(|why| format!("`{key}`: {why}")))
    {
        return Ok(Reached::Ended(Ended::Failed(reason)));
    }
    check_capabilities(
        run.cx.capabilities(),
        suspension.questions.iter().map(|(_, request)| request),
    )?;
    *at = Place::of_pc(run.machine, suspension.pc);
    state.point = at.id;
    state.kept_types = suspension.kept_types;
    state.frame = suspension.frame;
    state.pending = BTreeMap::new();
    for (key, request) in suspension.questions {
        let question = PendingQuestion {
            request,
            answer: None,
            reasks: 0,
        };
        if state.pending.insert(key.clone(), question).is_some() {
            return Err(RpcError::internal(format!(
                "two questions of one round share the key `{key}`"
            )));
        }
    }
    Ok(Reached::Suspended {
        handoff: suspension.handoff,
    })
}

/// The answers that count for the pending questions, once `responses` leaves none of them
/// unanswered; otherwise the questions to ask again (with the reason an answer was refused).
pub(crate) fn take_answers(
    pending: &mut BTreeMap<String, PendingQuestion>,
    responses: Map<String, Value>,
    sent_before: bool,
) -> Result<BTreeMap<String, Value>, Vec<(String, InputRequest)>> {
    let reasks = gather(pending, responses, sent_before);
    if !reasks.is_empty() {
        return Err(reasks);
    }
    Ok(std::mem::take(pending)
        .into_iter()
        .map(|(key, question)| (key, question.answer.unwrap_or(Value::Null)))
        .collect())
}

/// Where a flow stands in this build: the pc, and the resume point's id and label.
#[derive(Clone, Copy)]
pub(crate) struct Place {
    pc: u32,
    id: u32,
    label: Option<&'static str>,
}

impl Place {
    pub(crate) const START: Place = Place {
        pc: 0,
        id: 0,
        label: None,
    };

    /// The resume point a state names, if this build has it. A machine that lists no resume
    /// points names them by pc.
    pub(crate) fn of_state(machine: &dyn Machine, id: u32) -> Option<Place> {
        let points = machine.resume_points();
        if points.is_empty() {
            return Some(Place {
                pc: id,
                id,
                label: None,
            });
        }
        let point = points.iter().find(|point| point.id == id)?;
        Some(Place {
            pc: point.pc,
            id,
            label: Some(point.label),
        })
    }

    /// The resume point at `pc`, as a state names it.
    fn of_pc(machine: &dyn Machine, pc: u32) -> Place {
        let point = machine.resume_points().iter().find(|point| point.pc == pc);
        Place {
            pc,
            id: point.map_or(pc, |point| point.id),
            label: point.map(|point| point.label),
        }
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.label {
            Some(label) => write!(f, "{label} ({:08x})", self.id),
            None => write!(f, "{}", self.pc),
        }
    }
}

/// Redeems a single-use state: refused like any invalid state if it was redeemed before.
async fn consume(
    env: &Environment,
    claims: &Claims,
    principal: Option<&str>,
) -> Result<(), RpcError> {
    let redemption = Redemption::new(
        claims.token_id(),
        env.codec.accepted_until(claims),
        env.codec.now(),
    )
    .principal(principal)
    .clock_skew(env.codec.clock_skew());
    let first = env.replays.redeem(redemption).await.map_err(|error| {
        tracing::error!(target: "mrtr::state", %error, "the single-use store failed");
        RpcError::internal("the single-use store is unavailable")
    })?;
    if first {
        return Ok(());
    }
    tracing::warn!(target: "mrtr::state", reason = "single-use state presented again", token = %claims.token_id(), "rejected requestState");
    Err(RpcError::invalid_params(InvalidState::MESSAGE))
}

/// Matches the responses to the unanswered pending questions and returns the questions to ask
/// again. `sent_before`: the questions came from the state, so the client has seen them.
pub(crate) fn gather(
    pending: &mut BTreeMap<String, PendingQuestion>,
    responses: Map<String, Value>,
    sent_before: bool,
) -> Vec<(String, InputRequest)> {
    let mut reasks = Vec::new();
    for (key, question) in pending
        .iter_mut()
        .filter(|(_, question)| question.answer.is_none())
    {
        let reason = match responses.get(key) {
            Some(response) => match question.request.validate_answer(response) {
                Ok(answer) => {
                    question.answer = Some(answer);
                    continue;
                }
                Err(reason) => Some(reason),
            },
            // Sampling and roots have no decline: a reply left out again after one re-ask
            // resolves as missing.
            None if sent_before && question.reasks >= 1 && !is_elicitation(&question.request) => {
                question.answer = Some(Value::Null);
                continue;
            }
            None => None,
        };
        if sent_before {
            question.reasks = question.reasks.saturating_add(1);
        }
        reasks.push((key.clone(), question.request.reasked(reason.as_deref())));
    }
    reasks
}

fn is_elicitation(request: &InputRequest) -> bool {
    matches!(
        request.kind(),
        InputKind::FormElicitation | InputKind::UrlElicitation
    )
}

/// Refuses with `-32021` if any request is of a kind this request's client did not declare.
pub(crate) fn check_capabilities<'a>(
    capabilities: &ClientCapabilities,
    requests: impl Iterator<Item = &'a InputRequest>,
) -> Result<(), RpcError> {
    let missing: Vec<InputKind> = requests
        .map(InputRequest::kind)
        .filter(|kind| !capabilities.supports(*kind))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = missing.iter().map(|kind| kind.describe()).collect();
    Err(RpcError::missing_capability(
        required_capabilities(missing),
        format!(
            "this request needs {} from the client, which it did not declare",
            names.join(" and ")
        ),
    ))
}

/// What the client learns when its state cannot be sealed (too large, no signing key).
const SEAL_FAILED: &str = "the server could not seal the requestState; the server log says why";

/// Seals `state` and returns the questions to send: `reasks`, or else the pending questions
/// as they stand.
fn suspend(
    env: &Environment,
    flow: &Flow,
    binding: &Binding<'_>,
    state: SavedState,
    reasks: Option<Vec<(String, InputRequest)>>,
    max_rounds: u32,
) -> Result<RoundEnd, RpcError> {
    if flow.round() > max_rounds {
        return Ok(RoundEnd::TooManyRounds(max_rounds));
    }
    let token = env
        .codec
        .seal_state(flow, binding, state.encode(&env.forms))
        .map_err(|error| {
            tracing::error!(target: "mrtr::state", %error, "could not seal requestState");
            // The reason names the configured caps and exact sizes: the log's, not the client's.
            RpcError::internal(SEAL_FAILED)
        })?;
    let requests = reasks.unwrap_or_else(|| {
        state
            .pending
            .into_iter()
            .map(|(key, question)| (key, question.request))
            .collect()
    });
    Ok(RoundEnd::InputRequired {
        requests,
        state: token,
    })
}
