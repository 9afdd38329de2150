//! Settings of recipes (`POST /v1/recipes/run` and its kin): how many steps one recipe may
//! have, how far a `forEach` may fan out, and how long the whole recipe may run. Each
//! operation a step runs keeps its own bounds as well; these bound the chain.

use std::time::Duration;

use serde::Deserialize;

use super::read::parser;

/// Each field is a setting (the file key is its serde name, the variable `WRENCH_` and that
/// name in upper case).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct RecipeConfig {
    /// Most steps one recipe may declare, 1 to 256.
    #[serde(rename = "recipe_max_steps", deserialize_with = "steps")]
    pub max_steps: usize,
    /// Most items one `forEach` step may run over, 1 to 100000.
    #[serde(rename = "recipe_max_items", deserialize_with = "fan_out")]
    pub max_items: usize,
    /// Most operation runs one recipe may make in all, `forEach` items included, 1 to 100000.
    #[serde(rename = "recipe_max_executions", deserialize_with = "fan_out")]
    pub max_executions: usize,
    /// Seconds one recipe may run, all its steps together, 1 to 300.
    #[serde(rename = "recipe_time_budget", deserialize_with = "budget")]
    pub time_budget: Duration,
}

impl Default for RecipeConfig {
    fn default() -> Self {
        RecipeConfig { max_steps: 32, max_items: 1000, max_executions: 2000, time_budget: Duration::from_secs(10) }
    }
}

/// A whole number from `low` to `high`, or the message naming the range.
fn within(v: &str, low: u64, high: u64) -> Result<u64, String> {
    v.trim()
        .parse()
        .ok()
        .filter(|n| (low..=high).contains(n))
        .ok_or_else(|| format!("expected a whole number from {low} to {high}, got {v:?}"))
}

parser!(steps -> usize = |v| within(v, 1, 256).map(|n| n as usize));
parser!(fan_out -> usize = |v| within(v, 1, 100_000).map(|n| n as usize));
parser!(budget -> Duration = |v| within(v, 1, 300).map(Duration::from_secs));

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn with(name: &str, value: &str) -> Result<Config, String> {
        Config::from_vars(&[(name.to_string(), value.to_string())])
    }

    #[test]
    fn defaults_and_bounds() {
        let c = Config::default();
        assert_eq!((c.recipes.max_steps, c.recipes.max_items, c.recipes.max_executions), (32, 1000, 2000));
        assert_eq!(c.recipes.time_budget.as_secs(), 10);
        assert_eq!(with("WRENCH_RECIPE_MAX_STEPS", "256").unwrap().recipes.max_steps, 256);
        assert!(with("WRENCH_RECIPE_MAX_STEPS", "257").unwrap_err().contains("WRENCH_RECIPE_MAX_STEPS"));
        assert!(with("WRENCH_RECIPE_MAX_STEPS", "0").is_err());
        assert_eq!(with("WRENCH_RECIPE_MAX_ITEMS", "5").unwrap().recipes.max_items, 5);
        assert_eq!(with("WRENCH_RECIPE_MAX_EXECUTIONS", "100000").unwrap().recipes.max_executions, 100_000);
        assert_eq!(with("WRENCH_RECIPE_TIME_BUDGET", "3").unwrap().recipes.time_budget.as_secs(), 3);
        assert!(with("WRENCH_RECIPE_TIME_BUDGET", "301").is_err());
    }
}
