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
//! `sep-2640-client-*` scenarios; `auth` for every `auth/*` scenario
//! (2025-03-26 back-compatibility and the extensions included). Each exports
//! a `FAMILY: Family`, listed in [`FAMILIES`]. Each scenario names the
//! revisions it runs at, exactly those
//! `conformance list --client` names for it (extensions: 2025-11-25 and
//! 2026-07-28); a unit test holds the registry to the pinned suite's
//! listing (`conformance/suite-list-client.txt`). `conformance/SCENARIOS.md`
//! says what each scenario must do. Every scenario uses only the public
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

    /// What `conformance list --client` prints for the pinned suite
    /// (0.2.0-alpha.12), copied verbatim; `cargo xtask conformance` reads
    /// the same listing from the installed suite.
    const SUITE_LISTING: &str = include_str!("../suite-list-client.txt");

    /// The extension scenarios run at both revisions (as the xtask does).
    const EXTENSION_REVISIONS: [ProtocolVersion; 2] =
        [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28];

    /// Every (scenario, revision) run of the listing.
    fn listed_runs() -> Vec<(String, ProtocolVersion)> {
        let mut runs = Vec::new();
        for line in SUITE_LISTING.lines() {
            let Some(rest) = line.trim_start().strip_prefix("- ") else {
                continue;
            };
            let (name, tag) = rest
                .split_once(" [")
                .unwrap_or_else(|| panic!("unreadable line {line:?}"));
            let tag = tag.trim_end().trim_end_matches(']');
            let revisions: Vec<ProtocolVersion> = if tag == "extension" {
                EXTENSION_REVISIONS.to_vec()
            } else {
                tag.split(',').map(ProtocolVersion::parse).collect()
            };
            for r in revisions {
                assert!(r.is_known(), "{name}: unknown revision {r}");
                runs.push((name.to_owned(), r));
            }
        }
        runs
    }

    #[test]
    fn every_run_the_suite_lists_is_registered_at_its_revision() {
        let runs = listed_runs();
        assert_eq!(runs.len(), 79);
        for (name, version) in &runs {
            let found = lookup(FAMILIES, name, Some(version)).map(|s| s.name);
            assert_eq!(found, Ok(name.as_str()), "{name} at {version}");
        }
        // And nothing more: no scenario registered at a revision the suite
        // does not run it at.
        for scenario in FAMILIES.iter().flat_map(|f| f.scenarios) {
            for version in scenario.revisions {
                assert!(
                    runs.iter().any(|(n, v)| n == scenario.name && v == version),
                    "{} is registered at {version}, which the suite does not list",
                    scenario.name
                );
            }
        }
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
