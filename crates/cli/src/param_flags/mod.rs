//! A command-line flag for every parameter a family's methods declare, made from the registry
//! entries: `--u-sample 5000` is `--set u_sample=5000`, `--keys a,b` is `--set keys=a,b`. A
//! parameter added to an entry is a flag of its command with no edit here; its help is the
//! parameter's own documentation, followed by the methods that take it.
//!
//! How a flag's value is read follows the parameter's kind: a bool is a switch (`--one-to-one`,
//! or `--one-to-one=false`); lists of columns, texts or numbers take comma-separated items (or
//! the flag repeated); a map takes `a=x,b=y` (or an inline TOML table); a number, a matrix or a
//! table is read as `--set` reads it; anything else as written. The method's parameter reader
//! checks the values, so the errors are those of `--set` and of experiment files. A name the
//! command has a flag for already (its own `--seed`) is left to that flag.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use anyhow::{Result, bail};
use clap::{Arg, ArgAction, ArgMatches, Command};
use intruder_data::params::{MethodDoc, ParamKind, ParamSpec};

use reading::{Reading, read};

/// The methods whose parameters become a command's flags.
pub trait Family {
    /// Every method of the family, as its registry documents it.
    fn docs() -> Vec<MethodDoc>;
}

/// Declares a family: a unit type and where its methods' documentation comes from.
macro_rules! family {
    ($(#[$doc:meta])* $name:ident => $docs:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $name;

        impl Family for $name {
            fn docs() -> Vec<MethodDoc> {
                $docs
            }
        }
    };
}

family!(/** Risk measures (`intruder risk`). */ Risk => intruder_risk::docs());
family!(/** Defences (`intruder mask --method`). */ Defences => intruder_defence::docs());
family!(/** Utility measures (`intruder utility`). */ Utility => intruder_utility::docs());
family!(
    /// Attacks and the three questions (`intruder attack`).
    Attacks => {
        let mut d = intruder_attack::docs();
        d.extend(intruder::questions::docs());
        d
    }
);

/// One flag: the parameter it sets, the names it answers to, its help, how it reads.
#[derive(Debug, Clone)]
pub(crate) struct FlagSpec {
    /// The parameter (its TOML key).
    pub param: &'static str,
    /// The flag's name (`u-sample`).
    pub long: String,
    /// Further names (a parameter's declared command-line aliases, `--k` for `k_anonymity`).
    pub aliases: Vec<String>,
    reading: Reading,
    kind: ParamKind,
    help: String,
}

/// The flags of a family: one per parameter name any method declares, in the order the
/// registry lists them (each family's common parameters first).
pub(crate) fn flags_of(docs: &[MethodDoc]) -> Vec<FlagSpec> {
    let mut order: Vec<&'static str> = Vec::new();
    let mut takers: BTreeMap<&'static str, Vec<(&'static str, &'static ParamSpec)>> =
        BTreeMap::new();
    for d in docs {
        for s in d.common.iter().chain(d.params) {
            if !takers.contains_key(s.name) {
                order.push(s.name);
            }
            takers.entry(s.name).or_default().push((d.name, s));
        }
    }
    order
        .into_iter()
        .map(|name| {
            let list = &takers[name];
            let first = list[0].1;
            let same_kind = list.iter().all(|(_, s)| s.kind == first.kind);
            let reading = if same_kind {
                Reading::of(first.kind)
            } else {
                Reading::Value
            };
            let mut aliases: Vec<String> = Vec::new();
            for (_, s) in list {
                for a in s.flag_aliases {
                    if !aliases.iter().any(|x| x == a) {
                        aliases.push((*a).to_string());
                    }
                }
            }
            let help = help(docs.len(), list);
            FlagSpec {
                param: name,
                long: name.replace('_', "-"),
                aliases,
                reading,
                kind: first.kind,
                help,
            }
        })
        .collect()
}

/// A flag's help: the parameter's documentation, its choices and default when every method
/// that takes it agrees on them, and the methods that take it (unless every one does).
fn help(methods: usize, takers: &[(&'static str, &'static ParamSpec)]) -> String {
    let first = takers[0].1;
    let mut help = first.doc.trim_end_matches('.').to_string();
    if let ParamKind::Choice(words) = first.kind
        && takers.iter().all(|(_, s)| s.kind == first.kind)
    {
        help.push_str(&format!("; one of {}", words.join(", ")));
    }
    let default = first.default_text();
    if takers.iter().all(|(_, s)| s.default_text() == default) && default != "optional" {
        help.push_str(&format!("; {default}"));
    }
    if takers.len() < methods {
        let names: Vec<&str> = takers.iter().map(|(m, _)| *m).collect();
        help.push_str(&format!(" ({})", names.join(", ")));
    }
    help.push('.');
    help
}

/// Whether the command already answers to `--name`.
fn taken(cmd: &Command, name: &str) -> bool {
    cmd.get_arguments().any(|a| {
        a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|v| v.contains(&name))
    })
}

/// The flags of a family that a command with these arguments gets (a name it has already is
/// left to its own flag; so is an alias that is another parameter's name).
fn added(cmd: &Command, flags: Vec<FlagSpec>) -> Vec<FlagSpec> {
    let longs: Vec<String> = flags.iter().map(|f| f.long.clone()).collect();
    flags
        .into_iter()
        .filter(|f| !taken(cmd, &f.long))
        .map(|mut f| {
            f.aliases
                .retain(|a| !taken(cmd, a) && !longs.iter().any(|l| l == a));
            f
        })
        .collect()
}

fn arg(f: &FlagSpec) -> Arg {
    let a = Arg::new(format!("param:{}", f.param))
        .long(f.long.clone())
        .visible_aliases(f.aliases.clone())
        .help(f.help.clone())
        .required(false);
    match f.reading {
        Reading::Switch => a
            .action(ArgAction::Set)
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true")
            .value_name("BOOL")
            .value_parser(clap::value_parser!(bool))
            .hide_possible_values(true),
        Reading::Texts | Reading::Numbers | Reading::Pairs { .. } => a
            .action(ArgAction::Append)
            .value_delimiter(',')
            .allow_hyphen_values(true)
            .value_name(f.reading.value_name(f.kind))
            .value_parser(clap::value_parser!(String)),
        Reading::Text | Reading::Value => a
            .action(ArgAction::Set)
            .allow_hyphen_values(true)
            .value_name(f.reading.value_name(f.kind))
            .value_parser(clap::value_parser!(String)),
    }
}

/// The parameters given as flags, for a command's parameter table.
#[derive(Debug, Clone)]
pub struct ParamFlags<F> {
    /// (parameter, its flag with any alias — `--k-anonymity (or --k)` —, value), in the order of
    /// the registry.
    given: Vec<(&'static str, String, toml::Value)>,
    family: PhantomData<F>,
}

impl<F> Default for ParamFlags<F> {
    fn default() -> Self {
        ParamFlags {
            given: Vec::new(),
            family: PhantomData,
        }
    }
}

impl<F: Family> ParamFlags<F> {
    /// Adds every parameter given as a flag to `table`; a parameter also given with `--set` is
    /// an error.
    pub fn insert_into(&self, table: &mut toml::Table) -> Result<()> {
        for (param, flag, v) in &self.given {
            if table.contains_key(*param) {
                bail!("'{param}' is given both as {flag} and with --set {param}=…; give it once");
            }
            table.insert((*param).to_string(), v.clone());
        }
        Ok(())
    }

    /// The flags given (`--k-anonymity (or --k)`), for messages.
    pub fn given(&self) -> Vec<String> {
        self.given.iter().map(|(_, f, _)| f.clone()).collect()
    }

    /// Whether no parameter was given as a flag.
    pub fn is_empty(&self) -> bool {
        self.given.is_empty()
    }
}

impl<F: Family> clap::FromArgMatches for ParamFlags<F> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for f in flags_of(&F::docs()) {
            let value = read(m, &f).map_err(|e| {
                clap::Error::raw(clap::error::ErrorKind::ValueValidation, format!("{e}\n"))
            })?;
            if let Some(v) = value {
                let mut flag = format!("--{}", f.long);
                if !f.aliases.is_empty() {
                    let others: Vec<String> = f.aliases.iter().map(|a| format!("--{a}")).collect();
                    flag.push_str(&format!(" (or {})", others.join(", ")));
                }
                given.push((f.param, flag, v));
            }
        }
        Ok(ParamFlags {
            given,
            family: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<F: Family> clap::Args for ParamFlags<F> {
    fn augment_args(cmd: Command) -> Command {
        let flags = added(&cmd, flags_of(&F::docs()));
        let cmd = cmd.next_help_heading(
            "Method parameters (each also --set NAME=VALUE; --list shows them by method)",
        );
        flags.iter().fold(cmd, |c, f| c.arg(arg(f)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

mod reading;
#[cfg(test)]
mod tests;
