//! Typed questions: what an `ask!` sends, and the type its answer decodes into.

use std::marker::PhantomData;

use serde_json::{Map, Value, json};

use crate::answer::{Answer, Reply, Root, SampledMessage};
use crate::form::Form;
use crate::machine::input::{
    ELICITATION_CREATE, InputRequest, ROOTS_LIST, SAMPLING_CREATE_MESSAGE,
};

/// The property name of the single field of an [`elicit::choice`] form until it is asked under
/// a key (which then names it), unless renamed with [`Ask::field`].
pub(crate) const CHOICE_FIELD: &str = "choice";

/// The property name of the single field of an [`elicit::choices`] form until it is asked
/// under a key, unless renamed.
const CHOICES_FIELD: &str = "choices";

/// A question and the type of its answer (`A`). Build one with [`elicit::form`],
/// [`elicit::choice`], [`elicit::url`], [`sample`], [`roots`] or [`recheck`], and pass it to
/// `ask!`.
#[must_use = "a question does nothing until it is passed to `ask!`"]
pub struct Ask<A> {
    request: Option<InputRequest>,
    /// A select whose one property has not been named with [`Ask::field`]: asked under a key,
    /// the property takes the key's name.
    named_by_key: bool,
    /// The hand-off point of a task-capable tool ([`handoff`](crate::task::handoff)).
    handoff: bool,
    answer: PhantomData<fn() -> A>,
}

impl<A> Ask<A> {
    fn new(request: Option<InputRequest>) -> Self {
        Self {
            request,
            named_by_key: false,
            handoff: false,
            answer: PhantomData,
        }
    }

    /// The hand-off point: no question, and the suspension it makes says "hand-off".
    pub(crate) fn handoff_point() -> Ask<()> {
        Ask {
            request: None,
            named_by_key: false,
            handoff: true,
            answer: PhantomData,
        }
    }

    /// Whether this is the hand-off point of a task-capable tool.
    pub fn is_handoff(&self) -> bool {
        self.handoff
    }

    /// The request to embed in `inputRequests` (`None` for a state-only round). A select not
    /// named with [`Ask::field`] still has its placeholder property name here (`choice` or
    /// `choices`); see [`Ask::into_request_for`].
    pub fn request(&self) -> Option<&InputRequest> {
        self.request.as_ref()
    }

    /// Takes the request out, as built (a select keeps its placeholder property name).
    pub fn into_request(self) -> Option<InputRequest> {
        self.request
    }

    /// Takes the request out as it is asked under `key`: the one property of an
    /// [`elicit::choice`] or [`elicit::choices`] not named with [`Ask::field`] is named `key`,
    /// so a client that keys answers by the question's name finds it under that name.
    pub fn into_request_for(self, key: &str) -> Option<InputRequest> {
        if self.named_by_key {
            self.rename_select(key.to_owned()).request
        } else {
            self.request
        }
    }
}

impl<A> Ask<A> {
    /// The schema of a select's one property (`None` for a question that is not a select).
    fn select_property(&mut self) -> Option<&mut Map<String, Value>> {
        let schema = self.request.as_mut()?.params.get_mut("requestedSchema")?;
        let properties = schema.get_mut("properties")?.as_object_mut()?;
        properties.values_mut().next()?.as_object_mut()
    }

    fn rename_select(mut self, name: String) -> Self {
        self.named_by_key = false;
        let Some(schema) = self
            .request
            .as_mut()
            .and_then(|request| request.params.get_mut("requestedSchema"))
        else {
            return self;
        };
        // Renamed in place: the map keeps its room, and a one-name `required` list its slot.
        if let Some(Value::Object(properties)) = schema.get_mut("properties")
            && let Some(property) = properties.values_mut().next().map(Value::take)
        {
            properties.clear();
            properties.insert(name.clone(), property);
        }
        match schema.get_mut("required") {
            Some(Value::Array(required)) if required.len() == 1 => {
                required[0] = Value::String(name);
            }
            _ => schema["required"] = json!([name]),
        }
        self
    }

    fn bound_select(mut self, keyword: &str, count: usize) -> Self {
        if let Some(property) = self.select_property() {
            property.insert(keyword.to_owned(), json!(count));
        }
        self
    }
}

/// A single-select ([`elicit::choice`]).
impl Ask<Answer<String>> {
    /// Names the form's one property, which is otherwise the ask's key (`choice` if it is
    /// never asked under one): `ask!(pick = elicit::choice("Which flight?", offers)
    /// .field("flight"))` asks under the key `pick` a form whose property is `flight`.
    pub fn field(self, name: impl Into<String>) -> Self {
        self.rename_select(name.into())
    }
}

/// A multi-select ([`elicit::choices`]).
impl Ask<Answer<Vec<String>>> {
    /// Names the form's one property, which is otherwise the ask's key (`choices` if it is
    /// never asked under one).
    pub fn field(self, name: impl Into<String>) -> Self {
        self.rename_select(name.into())
    }

    /// At least `count` options must be selected (`minItems`).
    pub fn min_items(self, count: usize) -> Self {
        self.bound_select("minItems", count)
    }

    /// At most `count` options may be selected (`maxItems`).
    pub fn max_items(self, count: usize) -> Self {
        self.bound_select("maxItems", count)
    }
}

impl<A> std::fmt::Debug for Ask<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ask")
            .field("request", &self.request)
            .finish()
    }
}

/// Elicitation: the primary way to ask the user.
pub mod elicit {
    use super::*;

    /// A form-mode elicitation for `T` (derive [`Form`] on it). Never ask for passwords, keys
    /// or payment data in a form: use [`url`] for those.
    pub fn form<T: Form>(message: impl Into<String>) -> Ask<Answer<T>> {
        Ask::new(Some(InputRequest {
            method: ELICITATION_CREATE.to_owned(),
            params: form_params(message.into(), T::requested_schema()),
        }))
    }

    /// A single-select built at run time, from data such as search results. The answer is
    /// the selected option's value, validated against exactly the options that were shown.
    ///
    /// ```
    /// use mrtr::elicit::{self, Pick};
    /// let offers = vec![("AF1234", "Paris 09:10, 120 EUR"), ("LH88", "Paris 11:45, 98 EUR")];
    /// let question = elicit::choice("Which flight?", offers.into_iter().map(Pick::from));
    /// # let _ = question;
    /// ```
    ///
    /// The form's one property is named after the ask's key (`let flight = ask!(elicit::choice(..))`
    /// sends a property `flight`); [`Ask::field`] names it otherwise.
    pub fn choice<I>(message: impl Into<String>, options: I) -> Ask<Answer<String>>
    where
        I: IntoIterator,
        I::Item: Into<Pick>,
    {
        let options: Vec<Pick> = options.into_iter().map(Into::into).collect();
        let mut property = Map::new();
        property.insert("type".to_owned(), json!("string"));
        offered(&mut property, options, "oneOf");
        select(message.into(), CHOICE_FIELD, property)
    }

    /// A multi-select built at run time. The answer is the selected options' values, each
    /// validated against exactly the options that were shown; [`Ask::min_items`] and
    /// [`Ask::max_items`] bound how many. The form's one property is named after the ask's key
    /// (`ask!(files = elicit::choices(..))` sends a property `files`); [`Ask::field`] names it
    /// otherwise.
    ///
    /// ```
    /// use mrtr::elicit::{self, Pick};
    /// let toppings = ["cheese", "olives", "basil"];
    /// let question = elicit::choices("Which toppings?", toppings).min_items(1).max_items(2);
    /// # let _ = question;
    /// ```
    pub fn choices<I>(message: impl Into<String>, options: I) -> Ask<Answer<Vec<String>>>
    where
        I: IntoIterator,
        I::Item: Into<Pick>,
    {
        let options: Vec<Pick> = options.into_iter().map(Into::into).collect();
        let mut items = Map::new();
        items.insert("type".to_owned(), json!("string"));
        offered(&mut items, options, "anyOf");
        let mut property = Map::new();
        property.insert("type".to_owned(), json!("array"));
        property.insert("items".to_owned(), Value::Object(items));
        select(message.into(), CHOICES_FIELD, property)
    }

    /// The options, added to `schema` as a string schema's `enum`, or, when one has a title,
    /// as `keyword` (the spec's `oneOf` for a single-select, `anyOf` for a multi-select's
    /// items) of `const`/`title` pairs.
    fn offered(schema: &mut Map<String, Value>, options: Vec<Pick>, keyword: &str) {
        if options.iter().any(|option| option.title.is_some()) {
            let titled: Vec<Value> = options
                .into_iter()
                .map(|option| {
                    let title = option.title.unwrap_or_else(|| option.value.clone());
                    json!({"const": option.value, "title": title})
                })
                .collect();
            schema.insert(keyword.to_owned(), Value::Array(titled));
        } else {
            let values: Vec<Value> = options
                .into_iter()
                .map(|option| Value::String(option.value))
                .collect();
            schema.insert("enum".to_owned(), Value::Array(values));
        }
    }

    /// A form with one required property, `field` until the ask's key names it.
    fn select<A>(message: String, field: &str, property: Map<String, Value>) -> Ask<A> {
        let mut properties = Map::new();
        properties.insert(field.to_owned(), Value::Object(property));
        let mut schema = Map::new();
        schema.insert("type".to_owned(), "object".into());
        schema.insert("properties".to_owned(), Value::Object(properties));
        schema.insert("required".to_owned(), vec![Value::from(field)].into());
        let mut ask = Ask::new(Some(InputRequest {
            method: ELICITATION_CREATE.to_owned(),
            params: form_params(message, Value::Object(schema)),
        }));
        ask.named_by_key = true;
        ask
    }

    /// A form elicitation's params, its members in the order rmcp writes them. Built by moving
    /// the parts in: `json!` would serialize a copy of each.
    fn form_params(message: String, schema: Value) -> Value {
        let mut params = Map::new();
        params.insert("mode".to_owned(), "form".into());
        params.insert("message".to_owned(), Value::String(message));
        params.insert("requestedSchema".to_owned(), schema);
        Value::Object(params)
    }

    /// A URL-mode elicitation: the user is sent to `url` out of band (sign-in, payment).
    ///
    /// Accept means the user *consented to open* the URL, not that they finished: decide
    /// completion on a later round from your own records (see [`recheck`](crate::recheck)).
    /// The URL must not carry secrets or personal data and must not be pre-authenticated; the
    /// page must check that the user who opens it is the user who was asked.
    ///
    /// The URL must be a valid absolute URL: anything else ends the tool with a tool error
    /// before it is sent. A URL that is not HTTPS and not on this machine is logged as a
    /// warning.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Ask<Answer<()>> {
        let url = url.into();
        if crate::machine::input::check_url(&url).is_ok()
            && crate::machine::input::insecure_remote(&url)
        {
            tracing::warn!(target: "mrtr::ask", "a URL elicitation sends the user to a non-HTTPS URL outside localhost");
        }
        Ask::new(Some(InputRequest {
            method: ELICITATION_CREATE.to_owned(),
            params: json!({"mode": "url", "message": message.into(), "url": url}),
        }))
    }

    /// One option of a [`choice`]: the value sent back, and an optional title shown instead.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Pick {
        /// The value the client sends back.
        pub value: String,
        /// What the user sees, if different from the value.
        pub title: Option<String>,
    }

    impl Pick {
        /// An option shown as its value.
        pub fn new(value: impl Into<String>) -> Self {
            Self {
                value: value.into(),
                title: None,
            }
        }

        /// Shows `title` instead of the value.
        pub fn title(mut self, title: impl Into<String>) -> Self {
            self.title = Some(title.into());
            self
        }
    }

    impl From<&str> for Pick {
        fn from(value: &str) -> Self {
            Self::new(value)
        }
    }

    impl From<String> for Pick {
        fn from(value: String) -> Self {
            Self::new(value)
        }
    }

    impl<V: Into<String>, T: Into<String>> From<(V, T)> for Pick {
        fn from((value, title): (V, T)) -> Self {
            Self::new(value).title(title)
        }
    }
}

/// The params of a `sampling/createMessage` request.
///
/// Sampling is deprecated by the 2026-07-28 specification (SEP-2577); it stays valid, but
/// prefer elicitation in new tools.
#[derive(Clone, Debug)]
pub struct SamplingRequest {
    params: Map<String, Value>,
}

impl SamplingRequest {
    /// A request for at most `max_tokens` tokens, with no messages yet.
    pub fn new(max_tokens: u32) -> Self {
        let mut params = Map::new();
        params.insert("messages".into(), Value::Array(Vec::new()));
        params.insert("maxTokens".into(), max_tokens.into());
        Self { params }
    }

    /// Raw params, passed through unchanged (for example with `tools`, which needs the
    /// client's `sampling.tools` capability; answering every `tool_use` is then up to you).
    pub fn from_params(params: Map<String, Value>) -> Self {
        Self { params }
    }

    fn message(mut self, role: &str, text: impl Into<String>) -> Self {
        let message = json!({"role": role, "content": {"type": "text", "text": text.into()}});
        if let Some(Value::Array(messages)) = self.params.get_mut("messages") {
            messages.push(message);
        }
        self
    }

    /// Appends a user message.
    pub fn user(self, text: impl Into<String>) -> Self {
        self.message("user", text)
    }

    /// Appends an assistant message.
    pub fn assistant(self, text: impl Into<String>) -> Self {
        self.message("assistant", text)
    }

    /// Sets the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.params
            .insert("systemPrompt".into(), prompt.into().into());
        self
    }

    /// Sets the temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.params.insert("temperature".into(), temperature.into());
        self
    }
}

/// Asks the client's model for a message.
///
/// **Deprecated by the specification** (MCP 2026-07-28, SEP-2577): still a valid input request,
/// but prefer elicitation in new tools. The reply is [`Reply::Missing`] when the client leaves
/// the key out even after one re-ask, or, over a 2025-11-25 session, answers with an error.
/// The official Python and TypeScript clients in 2026-07-28 mode do neither: when their
/// sampling callback refuses, they fail the whole call, and the tool never sees `Missing`
/// (see [`Reply`]).
pub fn sample(request: SamplingRequest) -> Ask<Reply<SampledMessage>> {
    Ask::new(Some(InputRequest {
        method: SAMPLING_CREATE_MESSAGE.to_owned(),
        params: Value::Object(request.params),
    }))
}

/// Asks the client for its roots.
///
/// **Deprecated by the specification** (MCP 2026-07-28, SEP-2577): still a valid input request,
/// but prefer tool arguments or elicitation in new tools. The reply is [`Reply::Missing`] when
/// the client leaves the key out even after one re-ask, or, over a 2025-11-25 session, answers
/// with an error. The official Python and TypeScript clients in 2026-07-28 mode do neither:
/// when their roots callback refuses, they fail the whole call, and the tool never sees
/// `Missing` (see [`Reply`]).
pub fn roots() -> Ask<Reply<Vec<Root>>> {
    Ask::new(Some(InputRequest {
        method: ROOTS_LIST.to_owned(),
        params: json!({}),
    }))
}

/// Suspends without a question: the client retries at once with the state. For polling an
/// out-of-band step (a URL elicitation's completion) or shedding load. Counts toward the round
/// cap like any round.
pub fn recheck() -> Ask<()> {
    Ask::new(None)
}
