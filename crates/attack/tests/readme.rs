//! The README's parameter tables are generated from the registry: this test fails when they
//! differ and prints the text to paste between the markers (or rewrites the section with
//! `UPDATE_README=1 cargo test -p intruder-attack --test integration readme::`).

use intruder_attack::{ATTACK_COMMON, docs};
use intruder_data::params::{markdown_common, markdown_table, splice_generated};

/// The generated section: the common parameters, then every attack with its own.
fn generated() -> String {
    format!(
        "Parameters every attack takes:\n\n{}\nEach attack's own parameters:\n\n{}",
        markdown_common(ATTACK_COMMON),
        markdown_table(&docs())
    )
}

#[test]
fn readme_tables_match_the_registry() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).expect("README.md is readable");
    let expected = splice_generated(&readme, "attacks", &generated())
        .expect("README.md has <!-- BEGIN attacks --> and <!-- END attacks --> markers");
    if readme != expected && std::env::var_os("UPDATE_README").is_some() {
        std::fs::write(path, &expected).expect("README.md is writable");
        return;
    }
    if readme != expected {
        panic!(
            "crates/attack/README.md is out of date with the registry; paste this between <!-- BEGIN attacks --> and <!-- END attacks -->:\n\n{}",
            generated()
        );
    }
}
