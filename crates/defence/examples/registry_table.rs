//! Prints the registry table of `crates/defence/README.md` (generated from
//! `intruder_defence::docs()`), or with `--write` replaces it in the README between
//! `<!-- BEGIN defences -->` and `<!-- END defences -->`:
//! `cargo run -p intruder-defence --example registry_table -- --write`.
use intruder_data::params::{markdown_table, splice_generated};

fn main() {
    let table = markdown_table(&intruder_defence::docs());
    if std::env::args().any(|a| a == "--write") {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
        let readme = std::fs::read_to_string(path).expect("read README.md");
        let new = splice_generated(&readme, "defences", &table)
            .expect("README.md has the <!-- BEGIN defences --> and <!-- END defences --> markers");
        std::fs::write(path, new).expect("write README.md");
    } else {
        print!("{table}");
    }
}
