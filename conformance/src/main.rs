//! The `conformance` binary: reads the suite's invocation, runs the named
//! scenario, and exits with one of the codes in [`conformance::exit`].

use std::process::ExitCode;

use conformance::exit;
use conformance::invocation::Invocation;
use conformance::registry::{self, FAMILIES};

fn main() -> ExitCode {
    let invocation = match Invocation::from_env() {
        Ok(inv) => inv,
        Err(e) => {
            eprintln!("conformance: {e}");
            return ExitCode::from(exit::BAD_INVOCATION);
        }
    };
    let scenario = match registry::lookup(
        FAMILIES,
        &invocation.scenario,
        invocation.protocol_version.as_ref(),
    ) {
        Ok(s) => s,
        Err(e) => {
            let known = registry::names(FAMILIES);
            eprintln!("conformance: {e} (implemented: {known:?})");
            return ExitCode::from(exit::UNKNOWN_SCENARIO);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("conformance: cannot start the runtime: {e}");
            return ExitCode::from(exit::RUNTIME);
        }
    };
    match runtime.block_on((scenario.run)(&invocation)) {
        Ok(()) => ExitCode::from(exit::SUCCESS),
        Err(e) => {
            eprintln!("conformance: scenario {} failed: {e}", scenario.name);
            ExitCode::from(exit::SCENARIO_FAILED)
        }
    }
}
