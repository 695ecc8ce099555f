//! No function in the workspace's sources is over 150 lines (issue 33). A long function hides
//! several steps behind one name: a reader has to hold all of them at once, a test can reach only
//! the whole, and a change to one step risks the others. Split such a function into named steps —
//! one function per step, named after what it computes, with a one-line doc comment — and pass the
//! state between them in a small struct rather than in a long list of arguments.
//!
//! Checked by parsing every `.rs` file under `crates/*/src/` and `data-synth/src/` with `syn` and
//! measuring every function that has a body (free functions, methods, trait default methods and
//! functions nested in other functions) from the first line of its signature to its closing brace;
//! doc comments and attributes above the signature do not count. Tests, benches and examples live
//! outside `src/` and are not checked; `#[cfg(test)]` modules inside `src/` are. Functions written
//! inside a macro invocation (`macro_rules!`, `proptest!`) are opaque tokens to `syn` and are not
//! seen.

use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// The most lines a function may span, signature to closing brace.
const MAX_LINES: usize = 150;

/// A function of a source file: its name, the line its signature starts on and how many lines it
/// spans.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// Collects every function with a body in a syntax tree, nested ones included.
#[derive(Default)]
struct Functions(Vec<Function>);

impl Functions {
    /// Records the function with this signature and body.
    fn record(&mut self, sig: &syn::Signature, body: &syn::Block) {
        let line = sig.span().start().line;
        let last = body.brace_token.span.close().end().line;
        self.0.push(Function {
            name: sig.ident.to_string(),
            line,
            lines: last + 1 - line,
        });
    }
}

impl<'ast> Visit<'ast> for Functions {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.record(&f.sig, &f.block);
        visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.record(&f.sig, &f.block);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.record(&f.sig, body);
        }
        visit::visit_trait_item_fn(self, f);
    }
}

/// The functions of a source text over [`MAX_LINES`] lines, in source order.
fn long_functions(source: &str) -> syn::Result<Vec<Function>> {
    let file = syn::parse_file(source)?;
    let mut functions = Functions::default();
    functions.visit_file(&file);
    let mut long: Vec<Function> = functions
        .0
        .into_iter()
        .filter(|f| f.lines > MAX_LINES)
        .collect();
    long.sort_by_key(|f| f.line);
    Ok(long)
}

/// Every `.rs` file under `dir`, at any depth.
fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// The workspace's source directories: `src/` of every crate under `crates/`, and `data-synth/src/`.
fn source_dirs(root: &Path) -> Vec<PathBuf> {
    let crates = root.join("crates");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates)
        .unwrap_or_else(|e| panic!("{}: {e}", crates.display()))
        .map(|entry| entry.expect("a directory entry").path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    dirs.push(root.join("data-synth").join("src"));
    dirs.sort();
    dirs
}

#[test]
fn no_function_in_the_sources_is_over_150_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("crates/eval is two levels below the workspace root");
    let mut files = Vec::new();
    for dir in source_dirs(root) {
        rust_files(&dir, &mut files);
    }
    files.sort();
    assert!(
        files.len() > 50,
        "only {} source files found under {}: the scan is looking in the wrong place",
        files.len(),
        root.display()
    );
    let mut found = Vec::new();
    for path in &files {
        let source =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let long = long_functions(&source).unwrap_or_else(|e| panic!("{shown}: {e}"));
        for f in long {
            found.push(format!("{shown}:{} {} ({} lines)", f.line, f.name, f.lines));
        }
    }
    assert!(
        found.is_empty(),
        "{} functions are over {MAX_LINES} lines; split each into named steps (issue 33):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// A function named `name` spanning `lines` lines from its signature to its closing brace, each
/// line indented by `indent`, with a doc comment and an attribute above it (which do not count).
fn function_of(name: &str, lines: usize, indent: &str) -> String {
    let mut text = format!("{indent}/// Not counted.\n{indent}#[inline]\n{indent}fn {name}() {{\n");
    for _ in 0..lines - 2 {
        text += &format!("{indent}    let _ = 0;\n");
    }
    text += &format!("{indent}}}\n");
    text
}

#[test]
fn the_negative_control_a_151_line_function_is_reported_and_a_150_line_one_is_not() {
    let source = [
        function_of("free_151", 151, ""),
        function_of("free_150", 150, ""),
        "struct S;\nimpl S {\n".into(),
        function_of("method_151", 151, "    "),
        function_of("method_150", 150, "    "),
        "}\ntrait T {\n    fn required();\n".into(),
        function_of("default_151", 151, "    "),
        function_of("default_150", 150, "    "),
        "}\nfn outer() {\n".into(),
        function_of("nested_151", 151, "    "),
        "}\n".into(),
    ]
    .concat();
    let long = long_functions(&source).expect("the control parses");
    let names: Vec<(&str, usize)> = long.iter().map(|f| (f.name.as_str(), f.lines)).collect();
    // `outer` holds the nested function's 151 lines, its doc line and attribute, and its own
    // signature and closing brace.
    assert_eq!(
        names,
        [
            ("free_151", 151),
            ("method_151", 151),
            ("default_151", 151),
            ("outer", 155),
            ("nested_151", 151),
        ]
    );
    // The line reported is the signature's, below the doc comment and the attribute.
    assert_eq!(long[0].line, 3);
}
