//! The scenario registry: one async function per suite scenario, grouped by
//! family, looked up by the name in `MCP_CONFORMANCE_SCENARIO`.
//!
//! A family is a module under [`scenarios`]: `lifecycle` for `initialize`;
//! `tools` for `tools_call`, `json-schema-ref-no-deref`,
//! `json-schema-2020-12-preservation`; `elicitation` for
//! `elicitation-sep1034-client-defaults`; `http` for `sse-retry`,
//! `http-standard-headers`, `http-custom-headers`,
//! `http-invalid-tool-headers`; `modern` for `request-metadata` and
//! `sep-2322-client-request-state`; `skills` for the four
//! `sep-2640-client-*` scenarios (the `auth/*` scenarios belong to the
//! OAuth issue). Each exports a `FAMILY: Family`, listed in [`FAMILIES`]. `conformance/SCENARIOS.md` says
//! what each scenario must do. Every scenario uses only the public
//! `mcp-client` API.
//!
//! No scenario is faked: a scenario the client cannot pass yet is listed,
//! with the reason, in `conformance/expected-failures.yaml`.

use std::future::Future;
use std::pin::Pin;

use mcp_types::ProtocolVersion;

use crate::invocation::Invocation;
use crate::scenarios;

/// Why a scenario failed (the client's or the server's fault).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ScenarioError(pub String);

/// What a scenario function returns.
pub type ScenarioFuture<'a> = Pin<Box<dyn Future<Output = Result<(), ScenarioError>> + 'a>>;

/// A scenario function: drives the client against the suite's server.
pub type ScenarioFn = for<'a> fn(&'a Invocation) -> ScenarioFuture<'a>;

/// One suite scenario this binary implements.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Scenario {
    /// The suite's name for it, e.g. `tools_call`.
    pub name: &'static str,
    /// The revisions it is implemented for.
    pub revisions: &'static [ProtocolVersion],
    /// The function that runs it.
    pub run: ScenarioFn,
}

impl Scenario {
    /// A scenario entry.
    pub const fn new(
        name: &'static str,
        revisions: &'static [ProtocolVersion],
        run: ScenarioFn,
    ) -> Scenario {
        Scenario {
            name,
            revisions,
            run,
        }
    }
}

/// A group of related scenarios (one module).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Family {
    /// The family's name, e.g. `tools`.
    pub name: &'static str,
    /// Its scenarios.
    pub scenarios: &'static [Scenario],
}

impl Family {
    /// A family entry.
    pub const fn new(name: &'static str, scenarios: &'static [Scenario]) -> Family {
        Family { name, scenarios }
    }
}

/// Every family.
pub const FAMILIES: &[Family] = &[
    scenarios::lifecycle::FAMILY,
    scenarios::tools::FAMILY,
    scenarios::elicitation::FAMILY,
    scenarios::http::FAMILY,
    scenarios::modern::FAMILY,
    scenarios::auth::FAMILY,
    scenarios::skills::FAMILY,
];

/// Why no scenario function could be chosen.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum LookupError {
    /// No registered scenario has this name.
    #[error("unknown scenario {0:?}: this binary does not implement it")]
    Unknown(String),
    /// The scenario exists but not for the requested revision.
    #[error("scenario {name:?} is not implemented for protocol version {version}")]
    WrongVersion {
        /// The scenario.
        name: String,
        /// The requested revision.
        version: ProtocolVersion,
    },
}

/// Finds the scenario `name` in `families`, checking it supports `version`
/// (when one was requested).
pub fn lookup<'f>(
    families: &'f [Family],
    name: &str,
    version: Option<&ProtocolVersion>,
) -> Result<&'f Scenario, LookupError> {
    let scenario = families
        .iter()
        .flat_map(|f| f.scenarios)
        .find(|s| s.name == name)
        .ok_or_else(|| LookupError::Unknown(name.to_owned()))?;
    match version {
        Some(v) if !scenario.revisions.contains(v) => Err(LookupError::WrongVersion {
            name: name.to_owned(),
            version: v.clone(),
        }),
        _ => Ok(scenario),
    }
}

/// Every registered scenario name, for error messages.
pub fn names(families: &[Family]) -> Vec<&'static str> {
    families
        .iter()
        .flat_map(|f| f.scenarios)
        .map(|s| s.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(_: &Invocation) -> ScenarioFuture<'_> {
        Box::pin(async { Ok(()) })
    }

    const TEST_FAMILY: &[Family] = &[Family::new(
        "tools",
        &[Scenario::new(
            "tools_call",
            &[ProtocolVersion::V2025_11_25],
            ok,
        )],
    )];

    #[test]
    fn looks_up_by_name_and_revision() {
        let found = lookup(
            TEST_FAMILY,
            "tools_call",
            Some(&ProtocolVersion::V2025_11_25),
        );
        assert_eq!(found.map(|s| s.name), Ok("tools_call"));
        assert_eq!(
            lookup(TEST_FAMILY, "tools_call", None).map(|s| s.name),
            Ok("tools_call")
        );
        assert_eq!(
            lookup(
                TEST_FAMILY,
                "tools_call",
                Some(&ProtocolVersion::V2026_07_28)
            )
            .map(|s| s.name),
            Err(LookupError::WrongVersion {
                name: "tools_call".into(),
                version: ProtocolVersion::V2026_07_28
            })
        );
        assert_eq!(
            lookup(TEST_FAMILY, "initialize", None).map(|s| s.name),
            Err(LookupError::Unknown("initialize".into()))
        );
        assert_eq!(names(TEST_FAMILY), ["tools_call"]);
    }

    #[test]
    fn every_non_auth_scenario_of_the_suite_is_registered_at_its_revisions() {
        let legacy = ProtocolVersion::V2025_11_25;
        let modern = ProtocolVersion::V2026_07_28;
        let runs = [
            ("initialize", &legacy),
            ("tools_call", &legacy),
            ("elicitation-sep1034-client-defaults", &legacy),
            ("sse-retry", &legacy),
            ("json-schema-2020-12-preservation", &legacy),
            ("tools_call", &modern),
            ("request-metadata", &modern),
            ("sep-2322-client-request-state", &modern),
            ("http-standard-headers", &modern),
            ("http-custom-headers", &modern),
            ("http-invalid-tool-headers", &modern),
            ("json-schema-ref-no-deref", &modern),
            ("json-schema-2020-12-preservation", &modern),
        ];
        let skills = [
            "sep-2640-client-no-prefetch",
            "sep-2640-client-verify-digest",
            "sep-2640-client-verify-size",
            "sep-2640-client-verify-frontmatter",
        ];
        let runs = runs.into_iter().chain(
            skills
                .into_iter()
                .flat_map(|name| [(name, &legacy), (name, &modern)]),
        );
        for (name, version) in runs {
            assert_eq!(
                lookup(FAMILIES, name, Some(version)).map(|s| s.name),
                Ok(name),
                "{name} at {version}"
            );
        }
        assert!(matches!(
            lookup(FAMILIES, "initialize", Some(&modern)),
            Err(LookupError::WrongVersion { .. })
        ));
        let non_auth = names(FAMILIES)
            .into_iter()
            .filter(|n| !n.starts_with("auth/"))
            .count();
        assert_eq!(non_auth, 15);
    }

    #[test]
    fn the_registry_holds_no_duplicate_names() {
        let mut all = names(FAMILIES);
        let before = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), before);
    }
}
