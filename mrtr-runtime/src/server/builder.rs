//! Configuring a [`Server`]: its identity, keys, machines and defaults.

use std::sync::Arc;

use mrtr_uri_template::TemplateError;
use serde_json::json;

use super::instance::{Inner, Server, ServerInfo};
use crate::author::completion::Complete;
use crate::author::context::{AppState, Authorize};
use crate::engine::Environment;
use crate::machine::{CacheHint, CacheScope, Machine, Prompt, Resource, Tool};
use crate::param_headers::{check_param_headers, declares_param_headers};
use crate::single_use::{MemoryStore, ReplayStore};
use crate::state::known_forms::KnownForms;
use crate::task::TaskOptions;
use crate::task::runtime::TaskRuntime;
use crate::token::{KeyError, KeyRing, Mode, StateCodec};
use crate::uri_template::UriTemplate;

/// The round cap used when neither the tool nor the server sets one: what the TypeScript,
/// Python and rmcp clients allow.
pub const DEFAULT_MAX_ROUNDS: u32 = 10;

/// Configures a [`Server`].
pub struct ServerBuilder {
    name: String,
    version: String,
    codec: Option<StateCodec>,
    key_ring: Option<KeyRing>,
    mode: Mode,
    audience: Option<String>,
    tools: Vec<Arc<dyn Tool>>,
    prompts: Vec<Arc<dyn Prompt>>,
    resources: Vec<Arc<dyn Resource>>,
    state: AppState,
    authorizer: Option<Arc<dyn Authorize>>,
    replays: Arc<dyn ReplayStore>,
    single_use: bool,
    max_rounds: u32,
    list_cache: CacheHint,
    completer: Option<Arc<dyn Complete>>,
    tasks: TaskOptions,
}

/// The server could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The state keys are unusable.
    #[error(transparent)]
    Keys(#[from] KeyError),
    /// Two tools, two prompts or two resource templates share a name.
    #[error("two {kind} are named {name:?}")]
    Duplicate {
        /// `tools`, `prompts` or `resource templates`.
        kind: &'static str,
        /// The shared name.
        name: String,
    },
    /// A resource template does not parse.
    #[error("{0}")]
    UriTemplate(#[from] TemplateError),
    /// A tool's `x-mcp-header` annotations break SEP-2243's rules, so clients would drop the
    /// tool from their list.
    #[error("tool {tool:?}: {reason}")]
    ParamHeaders {
        /// The tool.
        tool: String,
        /// What is wrong, naming the argument.
        reason: String,
    },
}

impl Server {
    /// Starts configuring a server with its implementation name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            name: name.into(),
            version: version.into(),
            codec: None,
            key_ring: None,
            mode: Mode::default(),
            audience: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            state: AppState::default(),
            authorizer: None,
            replays: Arc::new(MemoryStore::default()),
            single_use: false,
            max_rounds: DEFAULT_MAX_ROUNDS,
            list_cache: CacheHint {
                ttl_ms: 60_000,
                scope: CacheScope::Public,
            },
            completer: None,
            tasks: TaskOptions::default(),
        }
    }
}

impl ServerBuilder {
    /// Answers `completion/complete` for the prompts' arguments and the resource templates'
    /// variables with `completer`, and declares the `completions` capability (see
    /// [`Complete`]).
    pub fn completion(mut self, completer: impl Complete) -> Self {
        self.completer = Some(Arc::new(completer));
        self
    }

    /// Seals states with this codec (its keys, mode and audience).
    pub fn codec(mut self, codec: StateCodec) -> Self {
        self.codec = Some(codec);
        self
    }

    /// The state keys (default: [`KEYS_ENV_VAR`](crate::token::KEYS_ENV_VAR), else a random
    /// process key with a warning). Ignored if [`ServerBuilder::codec`] is given.
    pub fn key_ring(mut self, ring: KeyRing) -> Self {
        self.key_ring = Some(ring);
        self
    }

    /// The sealing mode (default AEAD). Ignored if [`ServerBuilder::codec`] is given.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The audience states are bound to (default: the server's name). Ignored if
    /// [`ServerBuilder::codec`] is given.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// How tasks are kept (store, TTL, per-principal cap, lease): see [`TaskOptions`]. The
    /// default keeps them in this process's memory; instances sharing tasks share a store
    /// and the state keys.
    pub fn tasks(mut self, options: TaskOptions) -> Self {
        self.tasks = options;
        self
    }

    /// Registers a tool.
    pub fn tool(mut self, tool: impl Tool) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Registers a prompt.
    pub fn prompt(mut self, prompt: impl Prompt) -> Self {
        self.prompts.push(Arc::new(prompt));
        self
    }

    /// Registers a resource template.
    pub fn resource(mut self, resource: impl Resource) -> Self {
        self.resources.push(Arc::new(resource));
        self
    }

    /// Registers application state, reachable from tools with `cx.state::<T>()`.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Sets the authorization hook, run before every round of every flow.
    pub fn authorize(mut self, authorizer: impl Authorize) -> Self {
        self.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// Where single-use states are recorded (default: [`MemoryStore`], right for a single
    /// instance; several instances need a shared store).
    pub fn replay_store(mut self, store: impl ReplayStore) -> Self {
        self.replays = Arc::new(store);
        self
    }

    /// Makes every tool, prompt and resource single use, not only those marked
    /// `#[mrtr::tool(single_use)]`.
    pub fn single_use(mut self, all: bool) -> Self {
        self.single_use = all;
        self
    }

    /// The default round cap (default [`DEFAULT_MAX_ROUNDS`]).
    pub fn max_rounds(mut self, rounds: u32) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Cache hint of discover and list results (default 60 s, public).
    pub fn list_cache(mut self, cache: CacheHint) -> Self {
        self.list_cache = cache;
        self
    }

    /// Builds the server.
    pub fn build(self) -> Result<Server, BuildError> {
        let codec = match self.codec {
            Some(codec) => codec,
            None => {
                let mut builder = StateCodec::builder()
                    .mode(self.mode)
                    .audience(self.audience.unwrap_or_else(|| self.name.clone()));
                if let Some(ring) = self.key_ring {
                    builder = builder.key_ring(ring);
                }
                builder.build()?
            }
        };
        // The forms each machine asks by type: states waiting at them name them by id.
        let machines = (self.tools.iter().map(|tool| &**tool as &dyn Machine))
            .chain(self.prompts.iter().map(|prompt| &**prompt as &dyn Machine))
            .chain(
                self.resources
                    .iter()
                    .map(|resource| &**resource as &dyn Machine),
            );
        let mut forms = KnownForms::default();
        for machine in machines {
            for schema in machine.known_forms() {
                forms.register(schema);
            }
        }
        let tools: Vec<_> = self
            .tools
            .into_iter()
            .map(|tool| (tool.descriptor(), tool))
            .collect();
        for (descriptor, _) in &tools {
            check_param_headers(&descriptor.input_schema).map_err(|reason| {
                BuildError::ParamHeaders {
                    tool: descriptor.name.clone(),
                    reason,
                }
            })?;
        }
        let mirroring_tools = tools
            .iter()
            .filter(|(descriptor, _)| declares_param_headers(&descriptor.input_schema))
            .map(|(descriptor, _)| descriptor.name.clone())
            .collect();
        let prompts: Vec<_> = self
            .prompts
            .into_iter()
            .map(|prompt| (prompt.descriptor(), prompt))
            .collect();
        unique(
            "tools",
            tools.iter().map(|(descriptor, _)| &descriptor.name),
        )?;
        unique(
            "prompts",
            prompts.iter().map(|(descriptor, _)| &descriptor.name),
        )?;
        let resources = self
            .resources
            .into_iter()
            .map(|resource| {
                let descriptor = resource.descriptor();
                let template = UriTemplate::parse(&descriptor.uri_template)?;
                Ok((template, descriptor, resource))
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
        unique(
            "resource templates",
            resources
                .iter()
                .map(|(_, descriptor, _)| &descriptor.uri_template),
        )?;
        let tasks = TaskRuntime::new(self.tasks, &codec)?;
        let info = ServerInfo {
            name: self.name,
            version: self.version,
        };
        Ok(Server {
            inner: Arc::new(Inner {
                info_json: json!({"name": info.name, "version": info.version}),
                info,
                env: Environment {
                    codec,
                    state: Arc::new(self.state),
                    authorizer: self.authorizer,
                    replays: self.replays,
                    forms,
                },
                single_use: self.single_use,
                tools,
                prompts,
                resources,
                max_rounds: self.max_rounds,
                list_cache: self.list_cache,
                completer: self.completer,
                mirroring_tools,
                tasks,
            }),
        })
    }
}

fn unique<'a>(
    kind: &'static str,
    names: impl Iterator<Item = &'a String>,
) -> Result<(), BuildError> {
    let mut seen = std::collections::HashSet::new();
    for name in names {
        if !seen.insert(name) {
            return Err(BuildError::Duplicate {
                kind,
                name: name.clone(),
            });
        }
    }
    Ok(())
}
