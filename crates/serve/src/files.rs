//! The files the page may read: uploads (kept in a private temporary directory), files under
//! `--root`, and the one FILE of the command line. A path is refused when it is absolute, has
//! a `..` component, or leads out of its directory through a symbolic link; so is an
//! experiment that names such a path anywhere.

use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

/// The extensions of the files listed and accepted: data files and schema files.
pub const EXTENSIONS: &[&str] = &[
    "csv", "tsv", "txt", "parquet", "arrow", "feather", "ipc", "sav", "zsav", "dta", "sas7bdat",
    "toml",
];

/// How many files a listing shows at most (a listing of a huge tree stops there).
pub const LIST_LIMIT: usize = 2000;

/// Where the page's data come from, as the page names it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "place", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Source {
    /// A file under `--root`, by its path relative to the root.
    Root {
        /// The path relative to the root, `/`-separated.
        path: String,
    },
    /// A file uploaded in this session, by its name.
    Upload {
        /// The file name.
        path: String,
    },
    /// The FILE given on the command line.
    File,
    /// A built-in generator's file (`intruder synth --list`), generated with the seed.
    Generator {
        /// The generator.
        generator: String,
        /// Its size `n` (default: the generator's).
        n: Option<u64>,
        /// Its further parameters.
        #[serde(default)]
        params: toml::Table,
        /// The experiment seed (the runner generates with it, so the page sees the same data).
        seed: u64,
        /// Which of the files it writes.
        file: String,
    },
}

/// An error of a file request: what the page shows.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// The directories and files the server reads from.
pub struct Places {
    /// `--root`, canonical.
    pub root: Option<PathBuf>,
    /// The command line's FILE, canonical.
    pub file: Option<PathBuf>,
    /// The session's private directory: `uploads/`, `generated/`, `runs/`.
    work: tempfile::TempDir,
    /// Numbers the uploads being received (each writes its own `.part` file).
    parts: std::sync::atomic::AtomicU64,
    /// Held while an upload picks its stored name, so two uploads never take the same one.
    naming: std::sync::Mutex<()>,
}

impl Places {
    /// The places of a server with this root and file, and a fresh private directory.
    pub fn new(root: Option<PathBuf>, file: Option<PathBuf>) -> Result<Places> {
        let work = tempfile::Builder::new()
            .prefix("intruder-serve-")
            .tempdir()
            .context("creating the session's directory")?;
        for d in ["uploads", "generated", "runs"] {
            std::fs::create_dir_all(work.path().join(d))?;
        }
        Ok(Places {
            root,
            file,
            work,
            parts: Default::default(),
            naming: Default::default(),
        })
    }

    /// The session's private directory (`uploads/`, `generated/`, `runs/`), removed when the
    /// server stops.
    pub fn work(&self) -> &std::path::Path {
        self.work.path()
    }

    /// The directory of uploads (canonical).
    pub fn uploads(&self) -> PathBuf {
        canonical_or_self(&self.work.path().join("uploads"))
    }

    /// The directory generated data are cached in.
    pub fn generated(&self) -> PathBuf {
        self.work.path().join("generated")
    }

    /// The directory experiment runs write to.
    pub fn runs(&self) -> PathBuf {
        self.work.path().join("runs")
    }

    /// The directory an experiment with data from `source` is anchored at (its relative paths
    /// resolve there) and the files it may read there (`None`: any file under it).
    pub fn anchor(&self, source: &Source) -> Result<(PathBuf, Option<Vec<PathBuf>>), Refused> {
        match source {
            Source::Root { .. } => {
                self.root.clone().map(|r| (r, None)).ok_or_else(|| {
                    Refused("no --root was given: there are no files to read".into())
                })
            }
            Source::Upload { .. } | Source::Generator { .. } => Ok((self.uploads(), None)),
            Source::File => {
                let f = self
                    .file
                    .clone()
                    .ok_or_else(|| Refused("no FILE was given on the command line".into()))?;
                let dir = f.parent().map(Path::to_path_buf).unwrap_or_default();
                let schema = intruder_data::schema_beside(&f);
                Ok((dir, Some(vec![f, schema])))
            }
        }
    }

    /// The file a (non-generator) source names, checked to lie where it may.
    pub fn resolve(&self, source: &Source) -> Result<PathBuf, Refused> {
        match source {
            Source::Root { path } | Source::Upload { path } => {
                let (anchor, _) = self.anchor(source)?;
                let p = under(&anchor, path)?;
                if !p.is_file() {
                    return Err(Refused(format!("{path}: not a file")));
                }
                Ok(p)
            }
            Source::File => self
                .file
                .clone()
                .ok_or_else(|| Refused("no FILE was given on the command line".into())),
            Source::Generator { .. } => {
                Err(Refused("a generator's data are generated, not read".into()))
            }
        }
    }

    /// The files the page may pick: under the root (relative paths), the uploads, the FILE.
    pub fn list(&self) -> serde_json::Value {
        let mut root_files = Vec::new();
        if let Some(r) = &self.root {
            walk(r, r, 0, &mut root_files);
        }
        root_files.sort();
        let mut uploads: Vec<String> = std::fs::read_dir(self.uploads())
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| !n.ends_with(".part"))
                    .collect()
            })
            .unwrap_or_default();
        uploads.sort();
        serde_json::json!({
            "root": self.root.as_ref().map(|r| r.display().to_string()),
            "root_files": root_files,
            "truncated": root_files.len() >= LIST_LIMIT,
            "uploads": uploads,
            "file": self.file.as_ref().map(|f| f.display().to_string()),
        })
    }

    /// Checks that every string of an experiment file that could be a path stays where the
    /// data's place allows, and that its `[engine]` runs in this process ([`engine_problems`]):
    /// every problem at once, each with its key path.
    pub fn check_experiment(&self, doc: &toml::Table, source: &Source) -> Result<(), Vec<String>> {
        let (anchor, only) = self.anchor(source).map_err(|e| vec![e.0])?;
        let mut problems = Vec::new();
        if let Some(engine) = doc.get("engine") {
            problems.extend(engine_problems(engine));
        }
        let mut strings = Vec::new();
        strings_of(&toml::Value::Table(doc.clone()), "", &mut strings);
        for (key, s) in strings {
            if let Err(e) = path_allowed(&anchor, only.as_deref(), &s) {
                problems.push(format!("{key}: {}", e.0));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// Stores an uploaded file's name as a safe file name in the uploads directory.
    pub fn upload_path(&self, name: &str) -> Result<PathBuf, Refused> {
        Ok(self.uploads().join(upload_name(name)?))
    }

    /// A file of its own to receive an upload into (`<name>.<n>.part`, not listed): two
    /// uploads of the same name at once never write into the same file.
    pub fn upload_part(&self, path: &Path) -> PathBuf {
        let n = self
            .parts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        path.with_file_name(format!("{name}.{n}.part"))
    }

    /// Moves a received upload (`part`) to its stored name and returns that name: `path`
    /// when it is free or holds the same bytes, else the first of `stem-2.ext`, `stem-3.ext`,
    /// … that is — so an upload from another page (another browser) of a different file with
    /// the same name never replaces the file a page loaded.
    pub fn store_upload(&self, part: &Path, path: &Path) -> std::io::Result<PathBuf> {
        let _naming = self.naming.lock().unwrap_or_else(|e| e.into_inner());
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (stem, ext) = match name.rsplit_once('.') {
            Some((s, e)) => (s.to_string(), format!(".{e}")),
            None => (name.clone(), String::new()),
        };
        let mut n = 1;
        loop {
            let candidate = if n == 1 {
                path.to_path_buf()
            } else {
                path.with_file_name(format!("{stem}-{n}{ext}"))
            };
            if !candidate.exists() {
                std::fs::rename(part, &candidate)?;
                return Ok(candidate);
            }
            if same_bytes(part, &candidate)? {
                std::fs::remove_file(part)?;
                return Ok(candidate);
            }
            n += 1;
        }
    }
}

/// Whether two files hold the same bytes (their sizes first, then their contents in blocks).
fn same_bytes(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::io::Read;
    if std::fs::metadata(a)?.len() != std::fs::metadata(b)?.len() {
        return Ok(false);
    }
    let (mut fa, mut fb) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = fa.read(&mut ba)?;
        if n == 0 {
            return Ok(true);
        }
        fb.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(false);
        }
    }
}

/// The path itself when it cannot be made canonical.
fn canonical_or_self(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// The file `rel` under `anchor` (canonical): refused when `rel` is absolute, has a `..`
/// component, or leads out of `anchor` through a symbolic link; an error when it does not
/// exist.
pub fn under(anchor: &Path, rel: &str) -> Result<PathBuf, Refused> {
    let p = Path::new(rel);
    if rel.starts_with('/') || rel.starts_with('\\') || p.is_absolute() {
        return Err(Refused(format!(
            "{rel}: absolute paths are refused; name a file under the root"
        )));
    }
    if p.components().any(|c| {
        matches!(
            c,
            Component::ParentDir | Component::RootDir | Component::Prefix(_)
        )
    }) || rel.split(['/', '\\']).any(|c| c == "..")
    {
        return Err(Refused(format!(
            "{rel}: '..' is refused; name a file under the root"
        )));
    }
    let c = anchor
        .join(p)
        .canonicalize()
        .map_err(|e| Refused(format!("{rel}: {e}")))?;
    if !c.starts_with(anchor) {
        return Err(Refused(format!(
            "{rel}: leads out of the root (through a symbolic link); refused"
        )));
    }
    Ok(c)
}

/// Whether an experiment's string `s` is allowed: a string that names no file is (a column, a
/// method, a formula); one that looks like a path or names an existing file must lie under
/// `anchor` (and be one of `only` when given).
fn path_allowed(anchor: &Path, only: Option<&[PathBuf]>, s: &str) -> Result<(), Refused> {
    let looks_like_path = s.contains('/')
        || s.contains('\\')
        || s.starts_with('~')
        || s == ".."
        || Path::new(s).is_absolute()
        || std::fs::symlink_metadata(anchor.join(s)).is_ok();
    if !looks_like_path || s.is_empty() {
        return Ok(());
    }
    let resolved = match under(anchor, s) {
        Ok(p) => p,
        // a relative path without `..` that does not exist reads nothing (the runner reports
        // it as missing); one that escapes is refused
        Err(e) if e.0.contains("refused") => return Err(e),
        Err(_) => return Ok(()),
    };
    match only {
        Some(files) if !files.contains(&resolved) => Err(Refused(format!(
            "{s}: only the file given on the command line may be read"
        ))),
        _ => Ok(()),
    }
}

/// What the page refuses in an experiment's `[engine]`: it runs experiments in this process,
/// on the local engine or on DataFusion (`name = "datafusion"`, with `memory_limit`; spilling
/// to the system's temporary directory). A directory to write (`spill_dir`, `scratch_dir`)
/// and a Ballista cluster (a connection to a host the file names) are the command line's.
fn engine_problems(engine: &toml::Value) -> Vec<String> {
    let Some(t) = engine.as_table() else {
        return vec!["engine: a table (name = \"datafusion\", memory_limit = \"4GiB\")".into()];
    };
    let mut problems = Vec::new();
    for (k, v) in t {
        match (k.as_str(), v.as_str()) {
            ("name", Some("local" | "datafusion")) | ("memory_limit", _) => {}
            ("name", Some(n)) if n.starts_with("ballista://") => problems.push(format!(
                "engine.name: {n}: the page runs experiments in this process (local or datafusion); run a Ballista cluster's from the command line (intruder run FILE)"
            )),
            ("name", _) => problems.push(format!(
                "engine.name: {v}: the page runs experiments on \"local\" or \"datafusion\""
            )),
            ("spill_dir" | "scratch_dir", _) => problems.push(format!(
                "engine.{k}: the page writes no directory an experiment names; leave {k} out (DataFusion spills to the system's temporary directory)"
            )),
            _ => problems.push(format!(
                "engine.{k}: unknown; the page's [engine] takes name and memory_limit"
            )),
        }
    }
    problems
}

/// Every string of `v` with its key path (`data.released`, `defence[1].step[0].variables[2]`).
fn strings_of(v: &toml::Value, path: &str, out: &mut Vec<(String, String)>) {
    match v {
        toml::Value::String(s) => out.push((path.to_string(), s.clone())),
        toml::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                strings_of(x, &format!("{path}[{i}]"), out);
            }
        }
        toml::Value::Table(t) => {
            for (k, x) in t {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                strings_of(x, &p, out);
            }
        }
        _ => {}
    }
}

/// The files under `dir` (relative to `root`, `/`-separated) with a known extension, skipping
/// hidden entries and symbolic links that lead out of the root; at most four levels deep and
/// [`LIST_LIMIT`] files.
fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if out.len() >= LIST_LIMIT {
            return;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let Ok(c) = e.path().canonicalize() else {
            continue;
        };
        if !c.starts_with(root) {
            continue;
        }
        if c.is_dir() {
            if depth < 4 {
                walk(root, &e.path(), depth + 1, out);
            }
        } else if has_known_extension(&name)
            && let Ok(rel) = e.path().strip_prefix(root)
        {
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
}

/// Whether a file name ends in one of [`EXTENSIONS`].
fn has_known_extension(name: &str) -> bool {
    Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// An upload's name as stored: the last component of what the browser sent, made of letters,
/// digits, `.`, `-` and `_`, with a known extension.
pub fn upload_name(name: &str) -> Result<String, Refused> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    if base.is_empty()
        || base.starts_with('.')
        || base.len() > 120
        || !base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    {
        return Err(Refused(format!(
            "'{name}': an upload's name may hold letters, digits, '.', '-' and '_' (120 at most) and not start with '.'"
        )));
    }
    if !has_known_extension(base) {
        return Err(Refused(format!(
            "'{name}': not a data or schema file (the extensions read are {})",
            EXTENSIONS.join(", ")
        )));
    }
    Ok(base.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_under_the_root_resolves_and_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.csv"), "x\n1\n").unwrap();
        std::fs::write(dir.path().join("secret.csv"), "s\n1\n").unwrap();
        let root = root.canonicalize().unwrap();
        assert_eq!(under(&root, "sub/a.csv").unwrap(), root.join("sub/a.csv"));
        let e = under(&root, "../secret.csv").unwrap_err().0;
        assert_eq!(
            e,
            "../secret.csv: '..' is refused; name a file under the root"
        );
        let e = under(&root, "sub/../../secret.csv").unwrap_err().0;
        assert!(e.contains("'..' is refused"), "{e}");
        let abs = dir.path().join("secret.csv").display().to_string();
        let e = under(&root, &abs).unwrap_err().0;
        assert_eq!(
            e,
            format!("{abs}: absolute paths are refused; name a file under the root")
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.csv"), root.join("link.csv"))
                .unwrap();
            let e = under(&root, "link.csv").unwrap_err().0;
            assert_eq!(
                e,
                "link.csv: leads out of the root (through a symbolic link); refused"
            );
        }
    }

    #[test]
    fn an_upload_name_is_a_plain_file_name_with_a_data_extension() {
        assert_eq!(upload_name("C:\\x\\survey.csv").unwrap(), "survey.csv");
        assert_eq!(upload_name("a/b/s-1_2.parquet").unwrap(), "s-1_2.parquet");
        assert!(upload_name(".hidden.csv").is_err());
        assert!(
            upload_name("notes.exe")
                .unwrap_err()
                .0
                .contains("not a data")
        );
        assert!(upload_name("a b.csv").is_err());
    }

    #[test]
    fn an_experiment_naming_a_file_outside_is_refused_with_its_key() {
        let places = Places::new(None, None).unwrap();
        let doc: toml::Table = toml::from_str(
            "name = \"x\"\n[data]\nreleased = \"../../etc/passwd\"\ntruth = \"id\"\n[engine]\nname = \"local\"\n[[defence]]\nname = \"none\"\n[[defence.step]]\nmethod = \"global-recode\"\nhierarchy = \"/etc/hosts\"\n",
        )
        .unwrap();
        let src = Source::Upload {
            path: "a.csv".into(),
        };
        let problems = places.check_experiment(&doc, &src).unwrap_err();
        assert_eq!(
            problems,
            vec![
                "data.released: ../../etc/passwd: '..' is refused; name a file under the root"
                    .to_string(),
                "defence[0].step[0].hierarchy: /etc/hosts: absolute paths are refused; name a file under the root".to_string(),
            ]
        );
        let ok: toml::Table =
            toml::from_str("[data]\nreleased = \"a.csv\"\n[utility]\nmodel = \"y ~ x\"\n").unwrap();
        assert_eq!(places.check_experiment(&ok, &src), Ok(()));
    }

    /// The page runs an experiment on the local engine or DataFusion in this process; a
    /// directory to write, a cluster to reach, another engine or key: refused, each named.
    #[test]
    fn an_experiment_runs_on_datafusion_but_reaches_no_cluster_and_writes_no_directory() {
        let places = Places::new(None, None).unwrap();
        let src = Source::Upload {
            path: "a.csv".into(),
        };
        let doc = |engine: &str| -> toml::Table {
            toml::from_str(&format!("[data]\nreleased = \"a.csv\"\n[engine]\n{engine}")).unwrap()
        };
        for ok in [
            "name = \"datafusion\"\nmemory_limit = \"1GiB\"",
            "name = \"datafusion\"",
            "name = \"local\"",
        ] {
            assert_eq!(places.check_experiment(&doc(ok), &src), Ok(()), "{ok}");
        }
        let problems = places
            .check_experiment(
                &doc("name = \"ballista://10.0.0.1:50050\"\nspill_dir = \"spill\"\nscratch_dir = \"s\"\nthreads = 4"),
                &src,
            )
            .unwrap_err();
        assert_eq!(
            problems,
            vec![
                "engine.name: ballista://10.0.0.1:50050: the page runs experiments in this process (local or datafusion); run a Ballista cluster's from the command line (intruder run FILE)".to_string(),
                "engine.scratch_dir: the page writes no directory an experiment names; leave scratch_dir out (DataFusion spills to the system's temporary directory)".to_string(),
                "engine.spill_dir: the page writes no directory an experiment names; leave spill_dir out (DataFusion spills to the system's temporary directory)".to_string(),
                "engine.threads: unknown; the page's [engine] takes name and memory_limit".to_string(),
            ]
        );
        let problems = places
            .check_experiment(&doc("name = \"spark\""), &src)
            .unwrap_err();
        assert_eq!(
            problems,
            vec![
                "engine.name: \"spark\": the page runs experiments on \"local\" or \"datafusion\""
                    .to_string()
            ]
        );
    }
}
