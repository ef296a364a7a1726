//! Deploy wizard: ask until the version is valid (a loop), ask for approval only for
//! production (a branch), have the user sign off in the browser (URL mode: the server decides
//! completion on later, state-only rounds), then deploy: the destructive step after the last
//! ask. The tool is single use, so a replayed final state cannot deploy twice.
//!
//! Run it with `cargo run --example deploy_wizard`.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use mrtr::{Context, Form, Server, ToolError, elicit, recheck};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct DeployArgs {
    /// The service to deploy
    pub service: String,
    /// `staging` or `production`
    pub environment: String,
}

#[derive(Form)]
pub struct Version {
    /// The version to deploy, e.g. 1.4.2
    #[form(min_length = 5, max_length = 20)]
    pub version: String,
}

#[derive(Form)]
pub struct Approval {
    /// The change ticket approving this production deploy
    #[form(min_length = 3)]
    pub ticket: String,
}

/// Sign-off pages: the URL carries only an opaque ticket id (no secret, not pre-authenticated:
/// the page signs the user in and checks they are the one who was asked).
#[derive(Default)]
pub struct SignOffs {
    signed: Mutex<HashSet<String>>,
}

impl SignOffs {
    pub fn open(&self, cx: &Context) -> String {
        format!("so-{}", &cx.idempotency_key()[..12])
    }

    pub fn sign(&self, ticket: &str) {
        self.signed
            .lock()
            .expect("sign-off lock")
            .insert(ticket.to_owned());
    }

    pub fn is_signed(&self, ticket: &str) -> bool {
        self.signed.lock().expect("sign-off lock").contains(ticket)
    }
}

/// The deploy system (here: a log of what was deployed).
#[derive(Default)]
pub struct Deployer {
    pub deployed: Mutex<Vec<String>>,
}

/// A known release: `major.minor.patch` with numbers.
fn valid_version(version: &str) -> bool {
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
}

/// Deploys a service after the checks a production change needs.
#[mrtr::tool(single_use)]
pub async fn deploy(args: DeployArgs, cx: &Context) -> Result<String, ToolError> {
    let version = loop {
        let candidate = ask!(elicit::form::<Version>(
            "Which version? (major.minor.patch)"
        ))
        .accepted()?
        .version;
        if valid_version(&candidate) {
            break candidate;
        }
    };
    if args.environment == "production" {
        let approval = ask!(elicit::form::<Approval>(
            "Production deploy: which change ticket approves it?"
        ));
        let ticket = approval.accepted()?.ticket;
        if !ticket.starts_with("CHG-") {
            return Ok(format!(
                "{ticket} is not a change ticket; nothing deployed."
            ));
        }
    }
    let sign_offs = cx.state::<Arc<SignOffs>>();
    let ticket = sign_offs.open(cx);
    let consent = ask!(elicit::url(
        format!(
            "Sign off the deploy of {} {version} in the browser",
            args.service
        ),
        format!("https://deploy.example.com/sign-off/{ticket}")
    ));
    if !consent.is_accepted() {
        return Ok("Sign-off refused; nothing deployed.".into());
    }
    // Consent is not completion: check our own records, asking the client to retry meanwhile.
    let mut checks = 0;
    while !sign_offs.is_signed(&ticket) {
        checks += 1;
        if checks > 3 {
            return Ok("Not signed off yet; start the deploy again once it is.".into());
        }
        ask!(recheck());
    }
    let record = format!("{} {version} to {}", args.service, args.environment);
    cx.state::<Arc<Deployer>>()
        .deployed
        .lock()
        .map_err(|_| ToolError::new("deployer unavailable"))?
        .push(record.clone());
    Ok(format!("Deployed {record}."))
}

pub fn server(
    sign_offs: &Arc<SignOffs>,
    deployer: &Arc<Deployer>,
) -> Result<Server, mrtr::BuildError> {
    Server::builder("deployments", "1.0.0")
        .state(Arc::clone(sign_offs))
        .state(Arc::clone(deployer))
        .tool(deploy)
        .build()
}

#[allow(dead_code)]
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (sign_offs, deployer) = (Arc::new(SignOffs::default()), Arc::new(Deployer::default()));
    let server = server(&sign_offs, &deployer)?;
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}}});
    let mut params = json!({"_meta": meta, "name": "deploy", "arguments": {"service": "billing", "environment": "production"}});
    // "1.4" fails the form's schema (asked again by mrtr), "1.4.x" the tool's own check (its loop).
    let script = [
        json!({"version": "1.4"}),
        json!({"version": "1.4.x"}),
        json!({"version": "1.4.2"}),
        json!({"ticket": "CHG-1042"}),
    ];
    let mut sign_off_page = String::new();
    let mut script = script.into_iter();
    for id in 1.. {
        let response = server
            .handle(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .await;
        let result = &response["result"];
        if result["resultType"] != "input_required" {
            println!("round {id}: {}", result["content"][0]["text"]);
            break;
        }
        let requests = result["inputRequests"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut responses = serde_json::Map::new();
        for (key, request) in &requests {
            println!("round {id}: {key}: {}", request["params"]["message"]);
            let answer = if request["params"]["mode"] == "url" {
                // The user agrees to open the page; signing off there takes a moment.
                sign_off_page = request["params"]["url"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                json!({"action": "accept"})
            } else {
                json!({"action": "accept", "content": script.next().unwrap_or(Value::Null)})
            };
            responses.insert(key.clone(), answer);
        }
        if requests.is_empty() {
            println!(
                "round {id}: no question, the tool is waiting for the sign-off; the user signs off now"
            );
            sign_offs.sign(sign_off_page.rsplit('/').next().unwrap_or_default());
        }
        params["inputResponses"] = Value::Object(responses);
        params["requestState"] = result["requestState"].clone();
    }
    Ok(())
}
