//! The restricted JSON Schema subset of form-mode elicitation: a flat object
//! whose properties are strings, numbers, booleans or enums (single and
//! multi select, titled or not, and the legacy `enumNames` form).
//!
//! Field order is kept as the server sent it, so a form renders in order.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Number, Value};

use crate::macros::open_enum;

mod select;

pub use select::{
    LegacyTitledEnumSchema, TitledItems, TitledMultiSelectEnumSchema, TitledOption,
    TitledSingleSelectEnumSchema, UntitledItems, UntitledMultiSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
};

/// The `requestedSchema` of a form: `{type: "object", properties, required}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct RequestedSchema {
    /// `$schema`, when the server names a dialect.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `object`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// The fields, in order.
    pub properties: SchemaProperties,
    /// Names of required fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

impl RequestedSchema {
    /// An empty form.
    pub fn new() -> Self {
        RequestedSchema {
            schema: None,
            schema_type: "object".to_owned(),
            properties: SchemaProperties::default(),
            required: None,
        }
    }

    /// Adds a field, required when `required`.
    #[must_use]
    pub fn with_field(
        mut self,
        name: impl Into<String>,
        field: impl Into<PrimitiveSchemaDefinition>,
        required: bool,
    ) -> Self {
        let name = name.into();
        let field = field.into();
        if required {
            self.required
                .get_or_insert_with(Vec::new)
                .push(name.clone());
        }
        self.properties.0.push((name, field));
        self
    }
}

impl Default for RequestedSchema {
    fn default() -> Self {
        RequestedSchema::new()
    }
}

/// Form fields by name, in the order received.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchemaProperties(pub Vec<(String, PrimitiveSchemaDefinition)>);

impl SchemaProperties {
    /// The field named `name`.
    pub fn get(&self, name: &str) -> Option<&PrimitiveSchemaDefinition> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, d)| d)
    }

    /// The fields as `(name, definition)`, in the order received.
    ///
    /// ```
    /// use mcp_types::elicitation::{PrimitiveSchemaDefinition, RequestedSchema};
    /// let schema: RequestedSchema = serde_json::from_value(serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    /// })).unwrap();
    /// let names: Vec<&str> = schema.properties.iter().map(|(name, _)| name).collect();
    /// assert_eq!(names, ["name", "age"]);
    /// let kinds = schema.properties.iter().filter(|(_, d)| matches!(d, PrimitiveSchemaDefinition::String(_)));
    /// assert_eq!(kinds.count(), 1);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &PrimitiveSchemaDefinition)> {
        self.0.iter().map(|(n, d)| (n.as_str(), d))
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no fields.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> IntoIterator for &'a SchemaProperties {
    type Item = (&'a str, &'a PrimitiveSchemaDefinition);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, PrimitiveSchemaDefinition)>,
        fn(&'a (String, PrimitiveSchemaDefinition)) -> (&'a str, &'a PrimitiveSchemaDefinition),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(n, d)| (n.as_str(), d))
    }
}

impl Serialize for SchemaProperties {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for SchemaProperties {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SchemaProperties;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of field schemas")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<SchemaProperties, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, PrimitiveSchemaDefinition>()? {
                    out.push((k, v));
                }
                Ok(SchemaProperties(out))
            }
        }
        deserializer.deserialize_map(V)
    }
}

impl schemars::JsonSchema for SchemaProperties {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SchemaProperties".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "object" })
    }
}

/// One form field's schema.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PrimitiveSchemaDefinition {
    /// `type: "string"`.
    String(StringSchema),
    /// `type: "number"` or `"integer"`.
    Number(NumberSchema),
    /// `type: "boolean"`.
    Boolean(BooleanSchema),
    /// `type: "string"` with `enum`.
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// `type: "string"` with `oneOf` of `{const, title}`.
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// `type: "array"` with `items.enum`.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// `type: "array"` with `items.anyOf` of `{const, title}`.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// `type: "string"` with `enum` and `enumNames` (legacy).
    LegacyTitledEnum(LegacyTitledEnumSchema),
    /// Anything else, kept as received (a client should decline such a form).
    Unknown(Value),
}

impl Serialize for PrimitiveSchemaDefinition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            PrimitiveSchemaDefinition::String(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::Number(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::Boolean(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::UntitledSingleSelect(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::TitledSingleSelect(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::UntitledMultiSelect(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::TitledMultiSelect(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::LegacyTitledEnum(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::Unknown(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use PrimitiveSchemaDefinition as P;
        use serde::de::Error;
        let v = Value::deserialize(deserializer)?;
        let has = |k: &str| v.get(k).is_some();
        let items_has = |k: &str| v.get("items").and_then(|i| i.get(k)).is_some();
        let e = D::Error::custom;
        Ok(match v.get("type").and_then(Value::as_str) {
            Some("string") if has("enum") && has("enumNames") => {
                P::LegacyTitledEnum(serde_json::from_value(v).map_err(e)?)
            }
            Some("string") if has("enum") => {
                P::UntitledSingleSelect(serde_json::from_value(v).map_err(e)?)
            }
            Some("string") if has("oneOf") => {
                P::TitledSingleSelect(serde_json::from_value(v).map_err(e)?)
            }
            Some("string") => P::String(serde_json::from_value(v).map_err(e)?),
            Some("number" | "integer") => P::Number(serde_json::from_value(v).map_err(e)?),
            Some("boolean") => P::Boolean(serde_json::from_value(v).map_err(e)?),
            Some("array") if items_has("anyOf") => {
                P::TitledMultiSelect(serde_json::from_value(v).map_err(e)?)
            }
            Some("array") if items_has("enum") => {
                P::UntitledMultiSelect(serde_json::from_value(v).map_err(e)?)
            }
            _ => P::Unknown(v),
        })
    }
}

open_enum! {
    /// Formats a string field may declare.
    pub enum StringFormat {
        /// An email address.
        Email = "email",
        /// A URI.
        Uri = "uri",
        /// A date.
        Date = "date",
        /// A date and time.
        DateTime = "date-time",
    }
}

/// A string field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StringSchema {
    /// Always `string`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl StringSchema {
    /// A string field.
    pub fn new() -> Self {
        StringSchema {
            schema_type: "string".to_owned(),
            title: None,
            description: None,
            min_length: None,
            max_length: None,
            format: None,
            default: None,
        }
    }

    /// Sets the label.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

impl Default for StringSchema {
    fn default() -> Self {
        StringSchema::new()
    }
}

/// A number or integer field. Bounds and default stay JSON numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct NumberSchema {
    /// `number` or `integer`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    /// Maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Number>,
}

/// A boolean field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct BooleanSchema {
    /// Always `boolean`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

impl StringSchema {
    /// Sets the help text.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the format.
    #[must_use]
    pub fn with_format(mut self, format: StringFormat) -> Self {
        self.format = Some(format);
        self
    }

    /// Sets the default value.
    #[must_use]
    pub fn with_default(mut self, default: impl Into<String>) -> Self {
        self.default = Some(default.into());
        self
    }
}

impl NumberSchema {
    /// A `number` field, or an `integer` field when `integer`.
    pub fn new(integer: bool) -> Self {
        NumberSchema {
            schema_type: if integer { "integer" } else { "number" }.to_owned(),
            title: None,
            description: None,
            minimum: None,
            maximum: None,
            default: None,
        }
    }

    /// Sets the bounds.
    #[must_use]
    pub fn with_range(mut self, minimum: Option<Number>, maximum: Option<Number>) -> Self {
        self.minimum = minimum;
        self.maximum = maximum;
        self
    }

    /// Sets the label.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

impl BooleanSchema {
    /// A boolean field.
    pub fn new() -> Self {
        BooleanSchema {
            schema_type: "boolean".to_owned(),
            title: None,
            description: None,
            default: None,
        }
    }

    /// Sets the label.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the default value.
    #[must_use]
    pub fn with_default(mut self, default: bool) -> Self {
        self.default = Some(default);
        self
    }
}

impl Default for BooleanSchema {
    fn default() -> Self {
        BooleanSchema::new()
    }
}

impl From<StringSchema> for PrimitiveSchemaDefinition {
    fn from(s: StringSchema) -> Self {
        PrimitiveSchemaDefinition::String(s)
    }
}

impl From<NumberSchema> for PrimitiveSchemaDefinition {
    fn from(s: NumberSchema) -> Self {
        PrimitiveSchemaDefinition::Number(s)
    }
}

impl From<BooleanSchema> for PrimitiveSchemaDefinition {
    fn from(s: BooleanSchema) -> Self {
        PrimitiveSchemaDefinition::Boolean(s)
    }
}

impl From<UntitledSingleSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: UntitledSingleSelectEnumSchema) -> Self {
        PrimitiveSchemaDefinition::UntitledSingleSelect(s)
    }
}

impl From<TitledSingleSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: TitledSingleSelectEnumSchema) -> Self {
        PrimitiveSchemaDefinition::TitledSingleSelect(s)
    }
}

impl From<UntitledMultiSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: UntitledMultiSelectEnumSchema) -> Self {
        PrimitiveSchemaDefinition::UntitledMultiSelect(s)
    }
}

impl From<TitledMultiSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: TitledMultiSelectEnumSchema) -> Self {
        PrimitiveSchemaDefinition::TitledMultiSelect(s)
    }
}
