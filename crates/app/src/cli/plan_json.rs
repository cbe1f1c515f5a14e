//! Reading plan JSON (`tessera plan --json` output). Its own module because `plan`, `check`
//! and `verify-capture` all read plans, and the reader needs none of them: `check` reads a
//! plan without depending on `plan`, which depends on `check` to print its verdict.

use std::path::Path;
use tessera_graph::Plan;

/// Parses plan JSON (`tessera plan --json` output); errors name the file, line and column.
pub fn parse_plan(text: &str, path: &Path) -> anyhow::Result<Plan> {
    if text.trim().is_empty() {
        anyhow::bail!(
            "{}: the file is empty: a plan is the JSON object `tessera plan --json` writes",
            path.display()
        );
    }
    serde_json::from_str::<Plan>(text).map_err(|e| {
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or_default();
        anyhow::anyhow!(
            "{}:{}:{}: {message}",
            path.display(),
            e.line(),
            e.column().max(1)
        )
    })
}
