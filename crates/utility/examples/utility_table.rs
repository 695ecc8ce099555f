//! Prints the registry section of `crates/utility/README.md` (generated from
//! `intruder_utility::docs()`), or with `--write` replaces it in the README between
//! `<!-- BEGIN utility-measures -->` and `<!-- END utility-measures -->`:
//! `cargo run -p intruder-utility --example utility_table -- --write`.
use intruder_data::params::splice_generated;

fn main() {
    let section = intruder_utility::registry_markdown();
    if std::env::args().any(|a| a == "--write") {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
        let readme = std::fs::read_to_string(path).expect("read README.md");
        let new = splice_generated(&readme, "utility-measures", &section).expect(
            "README.md has the <!-- BEGIN utility-measures --> and <!-- END utility-measures --> markers",
        );
        std::fs::write(path, new).expect("write README.md");
    } else {
        print!("{section}");
    }
}
