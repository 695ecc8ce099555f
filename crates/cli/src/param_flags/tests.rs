//! Tests of the flags made from the registries.

use super::*;
use clap::{Args as _, FromArgMatches as _};

fn parse(cmd: Command, line: &[&str]) -> Result<ParamFlags<Attacks>, clap::Error> {
    let cmd = ParamFlags::<Attacks>::augment_args(cmd.no_binary_name(true));
    let m = cmd.try_get_matches_from(line)?;
    ParamFlags::<Attacks>::from_arg_matches(&m)
}

fn table(line: &[&str]) -> toml::Table {
    let mut t = toml::Table::new();
    parse(Command::new("t"), line)
        .unwrap()
        .insert_into(&mut t)
        .unwrap();
    t
}

#[test]
fn each_kind_is_read_as_the_parameter_reader_expects() {
    let t = table(&[
        "--keys",
        "age,sex",
        "--one-to-one",
        "--fix-u=false",
        "--u-sample",
        "5000",
        "--threshold",
        "-0.5",
        "--weights",
        "age=10,sex=2.5",
        "--key-map",
        "age=AGE",
        "--assignment",
        "greedy",
    ]);
    let expected: toml::Table = r#"
        keys = ["age", "sex"]
        one_to_one = true
        fix_u = false
        u_sample = 5000
        threshold = -0.5
        weights = { age = 10, sex = 2.5 }
        key_map = { age = "AGE" }
        assignment = "greedy"
    "#
    .parse()
    .unwrap();
    assert_eq!(t, expected);
}

#[test]
fn a_map_may_be_an_inline_table_and_a_bad_pair_is_named() {
    let t = table(&["--weights", "{ age = 3 }"]);
    assert_eq!(t["weights"].to_string(), "{ age = 3 }");
    let e = parse(Command::new("t"), &["--weights", "age"]).unwrap_err();
    assert!(
        e.to_string()
            .contains("--weights: 'age' is not of the form name=value")
    );
    let e = parse(Command::new("t"), &["--weights", "age=x"]).unwrap_err();
    assert!(e.to_string().contains("'x' for 'age' is not a number"));
}

#[test]
fn a_name_the_command_has_is_left_to_its_own_flag() {
    let own = Command::new("t").arg(Arg::new("mine").long("keys"));
    let cmd = ParamFlags::<Attacks>::augment_args(own);
    let keys: Vec<_> = cmd
        .get_arguments()
        .filter(|a| a.get_long() == Some("keys"))
        .collect();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].get_id().as_str(), "mine");
    assert!(
        cmd.get_arguments()
            .any(|a| a.get_long() == Some("u-sample"))
    );
}

#[test]
fn a_flag_and_set_for_one_parameter_is_an_error() {
    let f = parse(Command::new("t"), &["--u-sample", "10"]).unwrap();
    let mut t: toml::Table = "u_sample = 5".parse().unwrap();
    let e = f.insert_into(&mut t).unwrap_err().to_string();
    assert!(e.contains("'u_sample' is given both"), "{e}");
}

#[test]
fn every_parameter_of_every_family_is_one_flag() {
    for docs in [
        Risk::docs(),
        Attacks::docs(),
        Defences::docs(),
        Utility::docs(),
    ] {
        let flags = flags_of(&docs);
        let mut names: Vec<&str> = docs
            .iter()
            .flat_map(|d| d.common.iter().chain(d.params).map(|s| s.name))
            .collect();
        names.sort_unstable();
        names.dedup();
        let mut params: Vec<&str> = flags.iter().map(|f| f.param).collect();
        params.sort_unstable();
        assert_eq!(params, names);
        // clap refuses a command with two arguments of one name: building one checks it
        let cmd = added(&Command::new("t"), flags)
            .iter()
            .fold(Command::new("t"), |c, f| c.arg(arg(f)));
        cmd.debug_assert();
    }
}

#[test]
fn a_whole_number_too_large_is_named_with_its_flag() {
    let e = parse(Command::new("t"), &["--u-sample", "18446744073709551615"]).unwrap_err();
    let e = e.to_string();
    assert!(
        e.contains("--u-sample 18446744073709551615: too large for a whole number"),
        "{e}"
    );
}
