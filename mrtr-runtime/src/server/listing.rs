//! What the server says about itself: `server/discover` and the `*/list` results, built from
//! the descriptors taken at build time.

use serde_json::{Map, Value, json};

use super::instance::Server;
use super::method::{Capability, Listing};
use crate::machine::{PromptDescriptor, ResourceDescriptor, ToolDescriptor};
use crate::protocol::PROTOCOL_VERSION;

impl Server {
    /// The result of `server/discover` or a `*/list` method, with the list cache hint.
    pub(super) fn listing(&self, listing: Listing) -> Value {
        let inner = &*self.inner;
        let result = match listing {
            Listing::Discover => self.discover(),
            Listing::Tools => json!({"tools": self.tools().map(tool_entry).collect::<Vec<_>>()}),
            Listing::Prompts => {
                json!({"prompts": self.prompts().map(prompt_entry).collect::<Vec<_>>()})
            }
            // A URI without expressions names one resource, which is listed; a template's
            // resources exist once their URI is read.
            Listing::Resources => json!({
                "resources": self
                    .resource_templates()
                    .filter(|descriptor| descriptor.is_concrete())
                    .map(resource_entry)
                    .collect::<Vec<_>>()
            }),
            Listing::ResourceTemplates => json!({
                "resourceTemplates": self
                    .resource_templates()
                    .filter(|descriptor| !descriptor.is_concrete())
                    .map(template_entry)
                    .collect::<Vec<_>>()
            }),
        };
        self.cacheable(result, inner.list_cache)
    }

    /// Whether something is registered for `capability` (then it is declared).
    pub(super) fn offers(&self, capability: Capability) -> bool {
        match capability {
            Capability::Tools => self.tools().len() > 0,
            Capability::Prompts => self.prompts().len() > 0,
            Capability::Resources => self.resource_templates().len() > 0,
            Capability::Completions => self.completes(),
            Capability::Tasks => self.serves_tasks(),
        }
    }

    fn discover(&self) -> Value {
        let mut capabilities: Map<String, Value> = Capability::ALL
            .into_iter()
            .filter(|capability| self.offers(*capability))
            .map(|capability| (capability.as_str().into(), json!({})))
            .collect();
        if self.serves_tasks() {
            capabilities.insert(
                "extensions".into(),
                json!({ (crate::task::TASKS_EXTENSION): {} }),
            );
        }
        json!({
            "supportedVersions": [PROTOCOL_VERSION],
            "capabilities": capabilities,
            "serverInfo": self.inner.info_json,
        })
    }
}

/// A tool's `tools/list` entry.
pub(crate) fn tool_entry(descriptor: &ToolDescriptor) -> Value {
    let mut entry = json!({"name": descriptor.name, "inputSchema": descriptor.input_schema});
    optional(
        &mut entry,
        [
            ("title", &descriptor.title),
            ("description", &descriptor.description),
        ],
    );
    // `forbidden` is the default: only a task-capable tool says so.
    if descriptor.task.allows_tasks() {
        entry["execution"] = json!({"taskSupport": descriptor.task.as_str()});
    }
    entry
}

fn prompt_entry(descriptor: &PromptDescriptor) -> Value {
    let arguments: Vec<Value> = descriptor
        .arguments
        .iter()
        .map(|argument| {
            let mut entry = json!({"name": argument.name, "required": argument.required});
            optional(&mut entry, [("description", &argument.description)]);
            entry
        })
        .collect();
    let mut entry = json!({"name": descriptor.name, "arguments": arguments});
    optional(
        &mut entry,
        [
            ("title", &descriptor.title),
            ("description", &descriptor.description),
        ],
    );
    entry
}

fn template_entry(descriptor: &ResourceDescriptor) -> Value {
    described(
        json!({"uriTemplate": descriptor.uri_template, "name": descriptor.name}),
        descriptor,
    )
}

fn resource_entry(descriptor: &ResourceDescriptor) -> Value {
    described(
        json!({"uri": descriptor.uri_template, "name": descriptor.name}),
        descriptor,
    )
}

/// A resource or template entry with the descriptor's title, description and MIME type.
fn described(mut entry: Value, descriptor: &ResourceDescriptor) -> Value {
    let fields = [
        ("title", &descriptor.title),
        ("description", &descriptor.description),
        ("mimeType", &descriptor.mime_type),
    ];
    optional(&mut entry, fields);
    entry
}

/// Sets the fields that have a value; an absent one is left out rather than `null`.
fn optional<const N: usize>(entry: &mut Value, fields: [(&str, &Option<String>); N]) {
    for (field, value) in fields {
        if let Some(value) = value {
            entry[field] = value.clone().into();
        }
    }
}
