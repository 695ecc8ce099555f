//! The measure tables of `crates/risk/README.md` are generated from the registry: this fails when
//! they differ, and prints the text to paste between the markers (`INTRUDER_WRITE_README=1`
//! writes it).

use intruder_data::params::{markdown_common, markdown_table, splice_generated};
use intruder_risk::{RISK_COMMON, docs};

#[test]
fn readme_tables_match_the_registry() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).expect("crates/risk/README.md");
    let generated = format!(
        "Common parameters (every measure):\n\n{}\nEach measure's own parameters:\n\n{}",
        markdown_common(RISK_COMMON),
        markdown_table(&docs())
    );
    let expected = splice_generated(&readme, "risk-measures", &generated).expect(
        "README.md has <!-- BEGIN risk-measures --> and <!-- END risk-measures --> markers",
    );
    if readme != expected && std::env::var_os("INTRUDER_WRITE_README").is_some() {
        std::fs::write(&path, &expected).expect("write crates/risk/README.md");
        return;
    }
    assert!(
        readme == expected,
        "crates/risk/README.md is out of date with RISK_MEASURES; put this between the markers:\n\n{generated}"
    );
}
