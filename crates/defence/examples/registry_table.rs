//! Prints the registry as the markdown table of `crates/defence/README.md`:
//! `cargo run -p intruder-defence --example registry_table`.
fn main() {
    print!("{}", intruder_defence::registry_markdown());
}
