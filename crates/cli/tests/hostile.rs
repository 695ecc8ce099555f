//! Hostile inputs (issue 19): a catalogue of malformed files and nonsense flags, each run
//! through the built binary in a fresh directory. Every case asserts that the command fails
//! with exit status 1 or 2 (or, for a documented warning, succeeds and warns), that it does not
//! panic or abort, that the message names the file, the place and what was expected, that no
//! input was modified and that no output (nor a temporary file) is left behind.
//!
//! A case is data: the files written into the directory, the command line (run in that
//! directory, so file names are relative), what is expected and the substrings the message
//! must contain. Add a case by adding a line to `cases()`.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A small data file: an id, two keys, a weight and a sensitive column.
const D: &str = "id,a,b,w,s\n1,x,1,2,p\n2,y,2,3,q\n3,x,1,2,p\n4,y,3,4,q\n5,x,2,5,p\n";
/// The intruder's file for `D`.
const I: &str = "id,a,b\n1,x,1\n2,y,2\n";
/// A pipeline that works on `D`.
const PIPE: &str = "[[step]]\nmethod = \"local-suppression\"\nkeys = [\"a\", \"b\"]\nk = 2\n";
/// An experiment on `d.csv` that dry-runs.
const EXP: &str = "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\", \"b\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n";
/// A linkage spec that works on `D` and `I`.
const LINK: &str = "blocking = [[\"a\"]]\n[[comparison]]\ncolumn = \"b\"\nlevels = [{kind = \"null\"}, {kind = \"exact\"}, {kind = \"else\"}]\n";

#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Exit status 1 or 2, no output left.
    Fail,
    /// Exit status 0 and a `warning:` on standard error.
    Warn,
    /// Exit status 0: a large but valid input handled in bounded memory or time; the strings
    /// must appear in the output (standard output and error).
    Ok,
}

struct Case {
    name: &'static str,
    files: Vec<(String, Vec<u8>)>,
    links: Vec<(String, String)>,
    args: Vec<String>,
    expect: Expect,
    must: Vec<String>,
    /// An open defect of issue 19, stated: the case still must not panic, modify an input or
    /// leave a temporary file, but its exit status and message are only reported.
    open: Option<&'static str>,
    /// Address-space limit of the run in MiB (`ulimit -v`), for cases about memory.
    mem_mib: Option<u64>,
}

fn case(name: &'static str, args: &str, must: &[&str]) -> Case {
    Case {
        name,
        files: Vec::new(),
        links: Vec::new(),
        args: args.split_whitespace().map(str::to_string).collect(),
        expect: Expect::Fail,
        must: must.iter().map(|s| s.to_string()).collect(),
        open: None,
        mem_mib: None,
    }
}

impl Case {
    fn file(mut self, name: &str, text: &str) -> Case {
        self.files.push((name.into(), text.as_bytes().to_vec()));
        self
    }
    fn bytes(mut self, name: &str, b: &[u8]) -> Case {
        self.files.push((name.into(), b.to_vec()));
        self
    }
    fn link(mut self, link: &str, target: &str) -> Case {
        self.links.push((link.into(), target.into()));
        self
    }
    /// Replaces the command line (for arguments holding spaces).
    fn argv(mut self, args: &[&str]) -> Case {
        self.args = args.iter().map(|s| s.to_string()).collect();
        self
    }
    /// Marks the case as an open defect (see the `open` field).
    #[allow(dead_code)]
    fn open(mut self, why: &'static str) -> Case {
        self.open = Some(why);
        self
    }
    fn warn(mut self) -> Case {
        self.expect = Expect::Warn;
        self
    }
    /// Succeeds (a valid input the toolkit must handle, see [`Expect::Ok`]).
    fn ok(mut self) -> Case {
        self.expect = Expect::Ok;
        self
    }
    /// Runs under an address-space limit of `mib` MiB.
    fn mem(mut self, mib: u64) -> Case {
        self.mem_mib = Some(mib);
        self
    }
    /// The data file `d.csv` is `D` and `i.csv` is `I`.
    fn d(self) -> Case {
        self.file("d.csv", D)
    }
    fn di(self) -> Case {
        self.file("d.csv", D).file("i.csv", I)
    }
}

fn risk(name: &'static str, csv: &str, extra: &str, must: &[&str]) -> Case {
    case(name, &format!("risk --data d.csv {extra}"), must).file("d.csv", csv)
}

fn risk_bytes(name: &'static str, csv: &[u8], extra: &str, must: &[&str]) -> Case {
    case(name, &format!("risk --data d.csv {extra}"), must).bytes("d.csv", csv)
}

fn schema(name: &'static str, toml: &str, must: &[&str]) -> Case {
    case(name, "risk --data d.csv --schema s.toml --keys a,b", must)
        .d()
        .file("s.toml", toml)
}

fn exp(name: &'static str, toml: &str, must: &[&str]) -> Case {
    case(name, "run e.toml --dry-run", must)
        .d()
        .file("e.toml", toml)
}

/// An experiment on `d.csv` with the given sections after `[data]`.
fn exp_with(name: &'static str, rest: &str, must: &[&str]) -> Case {
    let text = format!(
        "name = \"h\"\nseed = 1\nreplicates = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\", \"b\"]\nknown = 0.5\n[[defence]]\nname = \"none\"\n{rest}"
    );
    case(name, "run e.toml --dry-run", must)
        .d()
        .file("e.toml", &text)
}

fn pipe(name: &'static str, toml: &str, must: &[&str]) -> Case {
    case(
        name,
        "mask --data d.csv --pipeline p.toml --seed 1 --out o.csv",
        must,
    )
    .d()
    .file("p.toml", toml)
}

fn link(name: &'static str, toml: &str, must: &[&str]) -> Case {
    case(
        name,
        "attack --intruder i.csv --released d.csv --keys a,b --truth id --method fellegi-sunter --set linkage_spec=l.toml",
        must,
    )
    .di()
    .file("l.toml", toml)
}

fn attack(name: &'static str, extra: &str, must: &[&str]) -> Case {
    case(
        name,
        &format!("attack --intruder i.csv --released d.csv --keys a,b --truth id {extra}"),
        must,
    )
    .di()
}

fn mask(name: &'static str, extra: &str, must: &[&str]) -> Case {
    case(
        name,
        &format!("mask --data d.csv --seed 1 --out o.csv {extra}"),
        must,
    )
    .d()
}

fn cases() -> Vec<Case> {
    let huge = format!("id,a,b\n1,{},2\n2,y,3\n", "x".repeat(4 << 20));
    let many_cols = {
        let names: Vec<String> = (0..3000).map(|i| format!("c{i}")).collect();
        let row: Vec<String> = (0..3000).map(|i| (i % 3).to_string()).collect();
        format!(
            "{}\n{}\n{}\n",
            names.join(","),
            row.join(","),
            row.join(",")
        )
    };
    // 40,000 records on each side and one binary key: 800 million candidate pairs, which
    // listing in whole would take some 19 GB.
    let binary = {
        let mut t = String::from("id,a\n");
        for i in 1..=40_000 {
            t.push_str(&format!("{i},{}\n", i % 2));
        }
        t
    };
    // 3 records, 200,000 columns: c0 and c199999 are the keys, (1, x) twice and (2, y) once.
    let wide = |dup: bool| {
        let n = 200_000;
        let mut names: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
        if dup {
            names[n - 1] = "c7".into();
        }
        let mut t = names.join(",");
        t.push('\n');
        for (k, (a, b)) in [("1", "x"), ("1", "x"), ("2", "y")].iter().enumerate() {
            let mut row: Vec<String> = (0..n).map(|i| ((i + k) % 3).to_string()).collect();
            row[0] = a.to_string();
            row[n - 1] = b.to_string();
            t.push_str(&row.join(","));
            t.push('\n');
        }
        t
    };
    vec![
        // ---------------------------------------------------------------- memory and time
        risk("csv: 200,000 columns, two keys", &wide(false), "--keys c0,c199999 --format json", &["\"n_total\": 3", "\"sample_uniques\": 1"]).ok(),
        risk("csv: 200,000 columns, a name twice", &wide(true), "--keys c0", &["d.csv", "'c7'", "twice"]),
        case("memory: exact attack, 40k x 40k on one binary key", "attack --intruder i.csv --released r.csv --keys a --truth id --format json", &["\"in_candidates\": 40000", "\"expected_correct\": 2.0", "\"unique_correct\": 0", "candidates_not_listed", "796000000"])
            .file("i.csv", &binary).file("r.csv", &binary).ok().mem(3072),
        // ---------------------------------------------------------------- CSV
        risk("csv: missing file", "", "--keys a", &[]).argv(&["risk", "--data", "nope.csv", "--keys", "a"]),
        risk("csv: ragged row (too many fields)", "a,b\n1,2\n3,4,5\n", "--keys a,b", &["d.csv:3", "expected 2 fields", "found 3"]),
        risk("csv: ragged row (too few fields)", "a,b\n1,2\n3\n", "--keys a,b", &["d.csv:3", "found 1"]),
        risk("csv: unterminated quote on last line", "a,b\n1,2\n\"3,4\n", "--keys a,b", &["d.csv:3", "quote"]),
        risk("csv: unterminated quote in the middle", "a,b\n1,\"2\n3,4\n5,6\n", "--keys a,b", &["d.csv", "quote"]),
        risk("csv: empty file", "", "--keys a", &["d.csv", "empty"]),
        risk("csv: only a newline", "\n", "--keys a", &["d.csv"]),
        risk("csv: header only", "a,b\n", "--keys a,b", &["d.csv", "no records"]),
        risk("csv: duplicate column names", "a,a,b\n1,2,3\n", "--keys b", &["d.csv", "'a'", "twice"]),
        risk("csv: empty column name", "a,,b\n1,2,3\n", "--keys a", &["d.csv", "column 2", "empty"]),
        risk("csv: whitespace column name", "a, ,b\n1,2,3\n", "--keys a", &["d.csv", "column 2", "empty"]),
        risk_bytes("csv: NUL byte in a cell", b"a,b\n1,x\x00y\n2,z\n", "--keys a,b", &["d.csv:2", "NUL"]),
        risk_bytes("csv: NUL byte in the header", b"a\x00,b\n1,2\n", "--keys b", &["d.csv:1", "NUL"]),
        risk_bytes("csv: invalid UTF-8 in a cell", b"a,b\n1,\xff\xfe\n", "--keys a,b", &["d.csv:2", "UTF-8"]),
        risk_bytes("csv: invalid UTF-8 in the header", b"a,\xc3\x28\n1,2\n", "--keys a", &["d.csv:1", "UTF-8"]),
        risk_bytes("csv: UTF-16 file", b"\xff\xfea\x00,\x00b\x00\n\x00", "--keys a", &["d.csv"]),
        risk_bytes("csv: BOM then unknown key", b"\xef\xbb\xbfa,b\n1,2\n", "--keys c", &["d.csv", "'c'"]),
        risk_bytes("csv: CRLF and a ragged row", b"a,b\r\n1,2\r\n3\r\n", "--keys a,b", &["d.csv:3"]),
        risk("csv: huge field and a ragged row", &format!("{huge}3\n"), "--keys a,b", &["d.csv:4"]),
        risk("csv: keys not in the file", D, "--keys a,zz", &["d.csv", "'zz'"]),
        risk("csv: key name with different case", D, "--keys A", &["'A'", "'a'"]),
        risk("csv: 1e999 in a numeric weight", "id,a,w\n1,x,2\n2,y,1e999\n", "--keys a --weight w --measure individual", &["d.csv", "'w'", "1e999"]),
        risk("csv: NaN weight", "id,a,w\n1,x,2\n2,y,NaN\n", "--keys a --weight w --measure individual", &["d.csv:3", "'w'", "NaN"]),
        risk("csv: inf weight", "id,a,w\n1,x,2\n2,y,inf\n", "--keys a --weight w --measure individual", &["d.csv:3", "'w'", "inf"]),
        risk("csv: -inf weight", "id,a,w\n1,x,2\n2,y,-inf\n", "--keys a --weight w --measure individual", &["d.csv:3", "'w'", "-inf"]),
        risk("csv: non-numeric weight", "id,a,w\n1,x,2\n2,y,abc\n", "--keys a --weight w --measure individual", &["d.csv:3", "'w'", "abc"]),
        risk("csv: negative weight", "id,a,w\n1,x,2\n2,y,-3\n", "--keys a --weight w --measure individual", &["d.csv:3", "'w'", "-3"]),
        risk("csv: zero weight", "id,a,w\n1,x,2\n2,y,0\n", "--keys a --weight w --measure individual", &["d.csv:3", "'w'", "'0'", "> 0"]),
        risk("csv: all-zero weights", "id,a,w\n1,x,0\n2,y,0\n", "--keys a --weight w --measure individual", &["d.csv:2", "'w'", "'0'"]),
        risk("csv: 1e300 weight", "id,a,w\n1,x,2\n2,y,1e300\n", "--keys a --weight w --measure individual", &["d.csv:3", "'w'", "1e300", "1e12"]),
        risk("csv: weights below 1", "id,a,w\n1,x,0.5\n2,y,0.25\n", "--keys a --weight w --measure individual", &["warning", "'w'", "below 1"]).warn(),
        risk("csv: weight column missing", D, "--keys a --weight zz --measure individual", &["'zz'"]),
        risk("csv: weight column is a string", D, "--keys a --weight s --measure individual", &["d.csv:2", "'s'", "'p'"]),
        risk("csv: weight missing in one row", "id,a,w\n1,x,2\n2,y,\n", "--keys a --weight w --measure individual", &["d.csv", "'w'", "record 2", "no weight"]),
        case("csv: NaN in a numeric key for nearest", "attack --intruder i.csv --released r.csv --keys b --truth id --method nearest", &["'b'", "row 2", "NaN"])
            .file("i.csv", I).file("r.csv", "id,a,b\n1,x,1\n2,y,NaN\n"),
        case("csv: inf in a numeric key for nearest", "attack --intruder i.csv --released r.csv --keys b --truth id --method nearest", &["'b'", "row 2", "inf"])
            .file("i.csv", I).file("r.csv", "id,a,b\n1,x,1\n2,y,inf\n"),
        case("csv: text in a numeric key for nearest", "attack --intruder i.csv --released r.csv --keys b --truth id --method nearest", &["'b'", "r.csv", "not numbers"])
            .file("i.csv", I).file("r.csv", "id,a,b\n1,x,1\n2,y,zz\n3,y,1\n4,y,2\n5,y,1\n6,y,2\n7,y,1\n8,y,2\n9,y,1\n10,y,2\n11,y,3\n12,y,4\n13,y,5\n"),
        case("csv: 1e999 in a mask noise variable", "mask --data d.csv --method noise --set variables=b --seed 1 --out o.csv", &["d.csv", "'b'", "row 2", "1e999"])
            .file("d.csv", "id,b\n1,1\n2,1e999\n3,2\n"),
        case("csv: NaN in a mask noise variable", "mask --data d.csv --method noise --set variables=b --seed 1 --out o.csv", &["d.csv", "'b'", "row 2", "NaN"])
            .file("d.csv", "id,b\n1,1\n2,NaN\n3,2\n"),
        case("csv: ragged released file in attack", "attack --intruder i.csv --released r.csv --keys a,b --truth id", &["r.csv:3"])
            .file("i.csv", I).file("r.csv", "id,a,b\n1,x,1\n2,y\n"),
        case("csv: unterminated quote in intruder file", "attack --intruder i.csv --released d.csv --keys a,b --truth id", &["i.csv:3", "quote"])
            .d().file("i.csv", "id,a,b\n1,x,1\n2,\"y,2\n"),
        case("csv: intruder file empty", "attack --intruder i.csv --released d.csv --keys a,b --truth id", &["i.csv", "empty"])
            .d().file("i.csv", ""),
        case("csv: duplicate truth ids in the released file", "attack --intruder i.csv --released r.csv --keys a,b --truth id", &["r.csv", "'id'", "rows 1 and 2", "'1'"])
            .file("i.csv", I).file("r.csv", "id,a,b\n1,x,1\n1,y,2\n3,x,1\n"),
        case("csv: duplicate truth ids in the intruder file (a split unit: a warning)", "attack --intruder i.csv --released d.csv --keys a,b --truth id", &["i.csv", "'id'", "row 2", "warning"])
            .d().file("i.csv", "id,a,b\n1,x,1\n1,y,2\n").warn(),
        case("csv: truth column missing", "attack --intruder i.csv --released d.csv --keys a,b --truth pid", &["'pid'"]).di(),
        case("csv: utility masked file ragged", "utility --original d.csv --masked m.csv --variables b", &["m.csv:3"])
            .d().file("m.csv", "id,a,b,w,s\n1,x,1,2,p\n2,y\n"),
        case("csv: utility variable not in masked", "utility --original d.csv --masked m.csv --variables b", &["m.csv", "'b'"])
            .d().file("m.csv", "id,a,w,s\n1,x,2,p\n"),
        case("csv: mask data with unterminated quote", "mask --data d.csv --pipeline p.toml --seed 1 --out o.csv", &["d.csv", "quote"])
            .file("d.csv", "id,a,b\n1,x,1\n2,\"y,2\n").file("p.toml", PIPE),
        case("csv: panel wave1 empty", "panel attack --wave1 w1.csv --wave2 w2.csv --mode match --scenario 2", &["w1.csv", "empty"])
            .file("w1.csv", "").file("w2.csv", D),
        risk("csv: only delimiters", ",,,\n,,,\n", "--keys a", &["d.csv"]),
        risk("csv: many columns, unknown key", &many_cols, "--keys nope", &["d.csv", "'nope'"]),
        risk("csv: delimiter flag of two characters", D, "--keys a --delimiter ab", &["delimiter", "one"]),
        risk("csv: delimiter is a quote", D, "--keys a --delimiter \"", &["delimiter"]),
        risk("csv: delimiter is a newline-like word", D, "--keys a --delimiter newline", &["delimiter"]),
        // ---------------------------------------------------------------- schema TOML
        schema("schema: not TOML", "this is = = not toml", &["s.toml", "line 1"]),
        schema("schema: unknown top-level key", "delimeter = \",\"\n", &["s.toml", "delimeter", "delimiter"]),
        schema("schema: unknown column key", "[columns.a]\ntyp = \"categorical\"\n", &["s.toml", "columns.a", "typ"]),
        schema("schema: unknown type", "[columns.a]\ntype = \"categorial\"\n", &["s.toml", "columns.a.type", "categorial", "categorical"]),
        schema("schema: unknown role", "[columns.a]\nrole = \"quasi\"\n", &["s.toml", "columns.a.role", "quasi", "key"]),
        schema("schema: type is a number", "[columns.a]\ntype = 3\n", &["s.toml", "columns.a.type"]),
        schema("schema: role is a list", "[columns.a]\nrole = [\"key\"]\n", &["s.toml", "columns.a.role"]),
        schema("schema: categories not a list", "[columns.a]\ntype = \"categorical\"\ncategories = \"x,y\"\n", &["s.toml", "columns.a.categories"]),
        schema("schema: categories miss a value of the data", "[columns.a]\ntype = \"categorical\"\ncategories = [\"x\"]\n", &["d.csv", "'a'", "y"]),
        schema("schema: duplicate categories", "[columns.a]\ntype = \"categorical\"\ncategories = [\"x\", \"y\", \"x\"]\n", &["s.toml", "columns.a.categories", "x"]),
        schema("schema: column that does not exist", "[columns.zz]\nrole = \"key\"\n", &["columns.zz", "no such column"]),
        schema("schema: integer type on text", "[columns.a]\ntype = \"integer\"\n", &["d.csv:2", "'a'", "'x'"]),
        schema("schema: float type on text", "[columns.s]\ntype = \"float\"\n", &["d.csv:2", "'s'", "'p'"]),
        schema("schema: integer type on a fraction", "[columns.b]\ntype = \"integer\"\n", &["d.csv:3", "'b'", "2.5"]).file("d.csv", "id,a,b\n1,x,1\n2,y,2.5\n"),
        schema("schema: delimiter of two characters", "delimiter = \";;\"\n", &["s.toml", "delimiter"]),
        schema("schema: delimiter is a number", "delimiter = 4\n", &["s.toml", "delimiter"]),
        schema("schema: missing not a list", "missing = 3\n", &["s.toml", "missing"]),
        schema("schema: columns is a list", "columns = [1, 2]\n", &["s.toml", "columns"]),
        schema("schema: column table is a string", "[columns]\na = \"key\"\n", &["s.toml", "columns.a"]),
        schema("schema: empty separator", "[columns.a]\ntype = \"set\"\nseparator = \"\"\n", &["s.toml", "columns.a.separator"]),
        schema("schema: two weight columns", "[columns.w]\nrole = \"weight\"\n[columns.b]\nrole = \"weight\"\n", &["s.toml", "weight", "w", "b"]),
        schema("schema: two truth columns", "[columns.id]\nrole = \"truth\"\n[columns.b]\nrole = \"truth\"\n", &["s.toml", "truth"]),
        schema("schema: weight role on text column", "[columns.s]\nrole = \"weight\"\n", &["d.csv:2", "'s'", "'p'"]).argv(&["risk", "--data", "d.csv", "--schema", "s.toml", "--keys", "a", "--measure", "individual"]),
        schema("schema: invalid UTF-8", "", &["s.toml", "UTF-8"]).bytes("s.toml", b"[columns.a]\nrole = \"\xff\"\n"),
        schema("schema: empty file then no keys", "", &["no key variables"]).argv(&["risk", "--data", "d.csv", "--schema", "s.toml"]),
        schema("schema: file missing", "", &["nope.toml"]).argv(&["risk", "--data", "d.csv", "--schema", "nope.toml", "--keys", "a"]),
        schema("schema: beside the data, broken", "", &["d.schema.toml", "line 1"]).argv(&["risk", "--data", "d.csv", "--keys", "a"]).file("d.schema.toml", "[[[\n"),
        schema("schema: is a directory", "", &["sd"]).argv(&["risk", "--data", "d.csv", "--schema", "sd", "--keys", "a"]).file("sd/x", ""),
        // ---------------------------------------------------------------- experiment TOML
        exp("experiment: empty file", "", &["e.toml", "data"]),
        exp("experiment: not TOML", "name = \n", &["e.toml", "line 1"]),
        exp("experiment: missing data section", "name = \"h\"\nseed = 1\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "data"]),
        exp_with("experiment: missing attack section", "", &["e.toml", "attack"]),
        exp("experiment: seed is a string", "name = \"h\"\nseed = \"one\"\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "seed"]),
        exp("experiment: negative seed", "name = \"h\"\nseed = -1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "seed"]),
        exp("experiment: replicates zero", "name = \"h\"\nseed = 1\nreplicates = 0\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "replicates"]),
        exp("experiment: replicates huge", "name = \"h\"\nseed = 1\nreplicates = 10000000000\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "replicates", "100000"]),
        exp("experiment: replicates a float", "name = \"h\"\nseed = 1\nreplicates = 2.5\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "replicates"]),
        exp("experiment: unknown top-level key", "name = \"h\"\nsede = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "sede", "seed"]),
        exp_with("experiment: unknown attack method", "[[attack]]\nmethod = \"exakt\"\n", &["e.toml", "attack[1]", "exakt", "exact"]),
        exp_with("experiment: unknown attack parameter", "[[attack]]\nmethod = \"exact\"\nmisssing = \"wildcard\"\n", &["e.toml", "misssing", "missing"]),
        exp_with("experiment: attack param wrong type", "[[attack]]\nmethod = \"nearest\"\nk = \"three\"\n", &["e.toml", "attack[1]"]),
        exp_with("experiment: attack keys not in data", "[[attack]]\nmethod = \"exact\"\nkeys = [\"zz\"]\n", &["zz"]),
        exp("experiment: scenario keys not in data", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"zz\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["scenario.keys", "zz"]),
        exp("experiment: truth column missing", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"pid\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["pid"]),
        exp("experiment: released file does not exist", "name = \"h\"\nseed = 1\n[data]\nreleased = \"nope.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["nope.csv"]),
        exp("experiment: intruder file does not exist", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\nintruder = \"nope.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["nope.csv"]),
        exp("experiment: released schema does not exist", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\nreleased_schema = \"nope.toml\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["nope.toml"]),
        exp("experiment: released data is ragged", "name = \"h\"\nseed = 1\n[data]\nreleased = \"r.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["r.csv:3"]).file("r.csv", "id,a\n1,x\n2,y,z\n"),
        exp("experiment: unknown generator", "name = \"h\"\nseed = 1\n[data]\ngenerator = \"nope\"\nreleased = \"x.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "data.generator", "nope"]),
        exp("experiment: n for files", "name = \"h\"\nseed = 1\n[data]\nn = 5\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "data.n"]),
        exp_with("experiment: unknown defence method", "[[defence]]\nname = \"x\"\n[[defence.step]]\nmethod = \"nois\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "defence", "nois", "noise"]),
        exp_with("experiment: defence step unknown param", "[[defence]]\nname = \"x\"\n[[defence.step]]\nmethod = \"local-suppression\"\nkk = 3\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "kk"]),
        exp_with("experiment: defence param out of range", "[[defence]]\nname = \"x\"\n[[defence.step]]\nmethod = \"local-suppression\"\nk = 0\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "k"]),
        exp_with("experiment: grid that explodes", &format!("[[defence]]\nname = \"x\"\n[[defence.step]]\nmethod = \"local-suppression\"\nk = [{}]\n[[defence.step]]\nmethod = \"noise\"\nvariables = [\"b\"]\nnoise = [{}]\n[[attack]]\nmethod = \"exact\"\n", (2..=1001).map(|i| i.to_string()).collect::<Vec<_>>().join(","), (1..=1000).map(|i| i.to_string()).collect::<Vec<_>>().join(",")), &["e.toml", "settings"]),
        exp_with("experiment: huge u_sample", "[[attack]]\nmethod = \"fellegi-sunter\"\nu_sample = 18446744073709551615\n", &["e.toml", "u_sample"]),
        exp_with("experiment: u_sample 1e12", "[[attack]]\nmethod = \"fellegi-sunter\"\nu_sample = 1000000000000\n", &["e.toml", "attack[1].u_sample", "1000000000"]),
        exp_with("experiment: two risk tables with the same name", "[[attack]]\nmethod = \"exact\"\n[[risk]]\nname = \"r\"\n[[risk]]\nname = \"r\"\n", &["e.toml", "risk", "'r'"]),
        exp_with("experiment: report metric that does not exist", "[[attack]]\nmethod = \"exact\"\n[report]\nrisk = \"exact.nope\"\n", &["e.toml", "report.risk", "exact.nope"]),
        exp_with("experiment: known above 1", "[[attack]]\nmethod = \"exact\"\n", &["e.toml", "known"]).file("e.toml", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\nknown = 1.5\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n"),
        exp_with("experiment: intruder_n larger than the file", "", &["e.toml", "intruder_n", "5"]).file("e.toml", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\nintruder_n = 1000\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n"),
        exp_with("experiment: linkage_spec does not exist", "[[attack]]\nmethod = \"fellegi-sunter\"\nlinkage_spec = \"nope.toml\"\n", &["nope.toml"]),
        exp_with("experiment: attack is a table, not a list", "[attack]\nmethod = \"exact\"\n", &["e.toml", "attack"]),
        exp_with("experiment: attack method missing", "[[attack]]\nname = \"x\"\n", &["e.toml", "attack[1]", "method"]),
        exp_with("experiment: empty grid list", "[[defence]]\nname = \"x\"\n[[defence.step]]\nmethod = \"local-suppression\"\nk = []\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "k"]),
        exp_with("experiment: utility measure unknown", "[[attack]]\nmethod = \"exact\"\n[utility]\nvariables = [\"b\"]\nmeasures = [\"pmes\"]\n", &["e.toml", "pmes"]),
        exp_with("experiment: risk measure unknown", "[[attack]]\nmethod = \"exact\"\n[[risk]]\nname = \"r\"\nmeasure = \"suda3\"\n", &["e.toml", "suda3"]),
        exp_with("experiment: invalid UTF-8", "", &["e.toml", "UTF-8"]).bytes("e.toml", b"name = \"\xff\"\n"),
        case("experiment: file missing", "run nope.toml --dry-run", &["nope.toml"]),
        case("experiment: a directory", "run ed --dry-run", &["ed"]).file("ed/x", ""),
        case("run: --threads 0", "run e.toml --threads 0", &["threads"]).d().file("e.toml", EXP),
        // ---------------------------------------------------------------- pipeline TOML
        pipe("pipeline: not TOML", "[[step]\n", &["p.toml", "line 1"]),
        pipe("pipeline: empty", "", &["p.toml", "step"]),
        pipe("pipeline: unknown method", "[[step]]\nmethod = \"local-supression\"\n", &["p.toml", "step[1]", "local-supression", "local-suppression"]),
        pipe("pipeline: method missing", "[[step]]\nk = 2\n", &["p.toml", "step[1]", "method"]),
        pipe("pipeline: unknown parameter", "[[step]]\nmethod = \"local-suppression\"\nkeys = [\"a\"]\nkay = 2\n", &["p.toml", "kay"]),
        pipe("pipeline: k = 0", "[[step]]\nmethod = \"local-suppression\"\nkeys = [\"a\"]\nk = 0\n", &["p.toml", "step[1].k"]),
        pipe("pipeline: k is a string", "[[step]]\nmethod = \"local-suppression\"\nkeys = [\"a\"]\nk = \"two\"\n", &["p.toml", "step[1].k"]),
        pipe("pipeline: unknown column", "[[step]]\nmethod = \"local-suppression\"\nkeys = [\"zz\"]\nk = 2\n", &["p.toml", "zz"]),
        pipe("pipeline: noise on text column", "[[step]]\nmethod = \"noise\"\nvariables = [\"s\"]\nnoise = 10\n", &["'s'"]),
        pipe("pipeline: noise huge", "[[step]]\nmethod = \"noise\"\nvariables = [\"b\"]\nnoise = 1e308\n", &["p.toml", "noise"]),
        pipe("pipeline: negative noise", "[[step]]\nmethod = \"noise\"\nvariables = [\"b\"]\nnoise = -5\n", &["p.toml", "noise"]),
        pipe("pipeline: pram pd above 1", "[[step]]\nmethod = \"pram\"\nvariables = [\"a\"]\npd = 1.5\n", &["p.toml", "pd"]),
        pipe("pipeline: subsample fraction 0", "[[step]]\nmethod = \"subsample\"\nfraction = 0\n", &["p.toml", "fraction"]),
        pipe("pipeline: subsample fraction NaN", "[[step]]\nmethod = \"subsample\"\nfraction = nan\n", &["p.toml", "fraction"]),
        pipe("pipeline: recode breaks not sorted", "[[step]]\nmethod = \"global-recode\"\nvariables = [\"b\"]\nbreaks = [5, 1, 3]\n", &["p.toml", "breaks"]),
        pipe("pipeline: mdav k larger than data", "[[step]]\nmethod = \"mdav\"\nvariables = [\"b\"]\nk = 1000\n", &["k"]),
        pipe("pipeline: step is a table", "[step]\nmethod = \"subsample\"\n", &["p.toml", "step"]),
        pipe("pipeline: unknown top-level key", "[[stepp]]\nmethod = \"subsample\"\n", &["p.toml", "stepp"]),
        pipe("pipeline: file missing", "", &["nope.toml"]).argv(&["mask", "--data", "d.csv", "--pipeline", "nope.toml", "--seed", "1", "--out", "o.csv"]),
        pipe("pipeline: with --method too", PIPE, &["--pipeline", "--method"]).argv(&["mask", "--data", "d.csv", "--pipeline", "p.toml", "--method", "subsample", "--seed", "1", "--out", "o.csv"]),
        pipe("pipeline: rank-swap p above 100", "[[step]]\nmethod = \"rank-swap\"\nvariables = [\"b\"]\np = 500\n", &["p.toml", "p"]),
        pipe("pipeline: invalid UTF-8", "", &["p.toml", "UTF-8"]).bytes("p.toml", b"[[step]]\nmethod = \"\xff\"\n"),
        // ---------------------------------------------------------------- linkage spec TOML
        link("linkage: not TOML", "blocking = [[\n", &["l.toml"]),
        link("linkage: unknown key", "blockng = [[\"a\"]]\n", &["l.toml", "blockng"]),
        link("linkage: unknown level kind", "[[comparison]]\ncolumn = \"b\"\nlevels = [{kind = \"soundalike\"}]\n", &["l.toml", "comparison", "soundalike"]),
        link("linkage: comparison column missing", "blocking = [[\"a\"]]\n[[comparison]]\ncolumn = \"zz\"\nlevels = [{kind = \"exact\"}, {kind = \"else\"}]\n", &["zz"]),
        link("linkage: blocking column missing", "blocking = [[\"zz\"]]\n[[comparison]]\ncolumn = \"b\"\nlevels = [{kind = \"exact\"}, {kind = \"else\"}]\n", &["zz"]),
        link("linkage: threshold missing for jaro-winkler", "[[comparison]]\ncolumn = \"a\"\nlevels = [{kind = \"jaro-winkler\"}, {kind = \"else\"}]\n", &["l.toml", "threshold"]),
        link("linkage: m above 1", "[[comparison]]\ncolumn = \"b\"\nlevels = [{kind = \"exact\", m = 1.5}, {kind = \"else\"}]\n", &["l.toml", "m"]),
        link("linkage: u zero", "[[comparison]]\ncolumn = \"b\"\nlevels = [{kind = \"exact\", u = 0}, {kind = \"else\"}]\n", &["l.toml", "u"]),
        link("linkage: comparison without levels", "[[comparison]]\ncolumn = \"b\"\n", &["l.toml", "levels"]),
        link("linkage: levels wrong type", "[[comparison]]\ncolumn = \"b\"\nlevels = \"exact\"\n", &["l.toml", "levels"]),
        link("linkage: blocking wrong shape", "blocking = \"a\"\n", &["l.toml", "blocking"]),
        link("linkage: empty blocking rule", "blocking = [[]]\n[[comparison]]\ncolumn = \"b\"\nlevels = [{kind = \"exact\"}, {kind = \"else\"}]\n", &["l.toml", "blocking"]),
        link("linkage: file missing", "", &["nope.toml"]).argv(&["attack", "--intruder", "i.csv", "--released", "d.csv", "--keys", "a,b", "--truth", "id", "--method", "fellegi-sunter", "--set", "linkage_spec=nope.toml"]),
        link("linkage: invalid UTF-8", "", &["l.toml"]).bytes("l.toml", b"blocking = [[\"\xff\"]]\n"),
        // ---------------------------------------------------------------- flags
        attack("flags: unknown method", "--method fs", &["method", "fs", "exact"]),
        attack("flags: u-sample u64::MAX", "--method fellegi-sunter --u-sample 18446744073709551615", &["--u-sample", "too large"]),
        attack("flags: u-sample 2^32", "--method fellegi-sunter --u-sample 4294967296", &["u_sample", "[1, 1000000000]"]),
        attack("flags: u-sample 1e9 via --set", "--method fellegi-sunter --set u_sample=1000000000", &["u_sample", "at most"]),
        attack("flags: u-sample negative", "--method fellegi-sunter --set u_sample=-5", &["u_sample"]),
        attack("flags: one-to-one on exact", "--method exact --one-to-one", &["one_to_one", "unknown key"]),
        attack("flags: unknown key column", "", &["'zz'"]).argv(&["attack", "--intruder", "i.csv", "--released", "d.csv", "--keys", "a,zz", "--truth", "id"]),
        attack("flags: empty keys", "", &["i.csv", "''"]).argv(&["attack", "--intruder", "i.csv", "--released", "d.csv", "--keys", "", "--truth", "id"]),
        attack("flags: key given as flag and --set", "--set keys=a", &["keys", "once"]),
        attack("flags: unknown --set key", "--set kk=3", &["kk"]),
        attack("flags: --set without =", "--set k3", &["k3", "KEY=VALUE"]),
        attack("flags: unknown missing policy", "--missing everything", &["missing", "everything", "wildcard"]),
        attack("flags: nearest k 0", "--method nearest --set k=0", &["k"]),
        attack("flags: seed negative", "--seed -1", &["'-1'"]),
        attack("flags: unknown format", "--format yaml", &["yaml"]),
        attack("flags: sensitive column missing", "--sensitive zz", &["'zz'"]),
        attack("flags: key map to a missing column", "--key-map a=zz", &["zz"]),
        attack("flags: intruder file missing", "", &["nope.csv"]).argv(&["attack", "--intruder", "nope.csv", "--released", "d.csv", "--keys", "a", "--truth", "id"]),
        mask("flags: mask without method or pipeline", "", &["--pipeline", "--method"]),
        mask("flags: mask unknown method", "--method nois", &["nois", "noise"]),
        mask("flags: mask k 0", "--method local-suppression --set keys=a,b --set k=0", &["k"]),
        mask("flags: mask unknown column", "--method local-suppression --set keys=a,zz --set k=2", &["zz"]),
        mask("flags: mask subsample fraction 2", "--method subsample --set fraction=2", &["fraction"]),
        mask("flags: mask noise 1e308", "--method noise --set variables=b --set noise=1e308", &["noise"]),
        case("flags: mask without --seed", "mask --data d.csv --method subsample --set fraction=0.5 --out o.csv", &["--seed"]).d(),
        case("flags: mask without --out", "mask --data d.csv --method subsample --set fraction=0.5 --seed 1", &["--out"]).d(),
        risk("flags: risk unknown measure", D, "--keys a --measure sudo2", &["sudo2", "suda2"]),
        risk("flags: risk unique threshold 0", D, "--keys a --unique-threshold 0", &["unique_threshold"]),
        risk("flags: risk unique threshold negative", D, "--keys a --unique-threshold -2", &["unique_threshold"]),
        risk("flags: population size smaller than sample", D, "--keys a --population-size 2", &["population size 2", "5 records"]),
        risk("flags: population size NaN", D, "--keys a --population-size NaN", &["population_size"]),
        risk("flags: population uniques above population", D, "--keys a --population-size 100 --population-uniques 1000", &["population_uniques", "100"]),
        risk("flags: sampling fraction 0", D, "--keys a --measure population --sampling-fraction 0", &["sampling_fraction"]),
        risk("flags: sampling fraction above 1", D, "--keys a --measure population --sampling-fraction 1.5", &["sampling_fraction"]),
        risk("flags: max msu size 0", D, "--keys a,b --measure suda2 --max-msu-size 0", &["max_msu_size"]),
        risk("flags: dis fraction negative", D, "--keys a,b --measure suda2 --dis-fraction -1", &["dis_fraction"]),
        risk("flags: unknown set-match", D, "--keys a --set-match some", &["some"]),
        risk("flags: risk sensitive column missing", D, "--keys a --measure l-diversity --sensitive zz", &["'zz'"]),
        risk("flags: group column missing", D, "--keys a --measure household --group zz", &["'zz'"]),
        risk("flags: no keys, no schema", D, "", &["no key variables", "--keys"]),
        risk("flags: unknown subcommand flag", D, "--keys a --frobnicate", &["--frobnicate"]),
        case("flags: utility unknown measure", "utility --original d.csv --masked d2.csv --variables b --measure pmes", &["pmes"]).d().file("d2.csv", D),
        case("flags: utility unknown variable", "utility --original d.csv --masked d2.csv --variables zz", &["'zz'"]).d().file("d2.csv", D),
        case("flags: utility bad model formula", "utility --original d.csv --masked d2.csv --variables b --model b~~", &["model"]).d().file("d2.csv", D),
        case("flags: utility log missing", "utility --original d.csv --masked d2.csv --variables b --log nope.json", &["nope.json"]).d().file("d2.csv", D),
        case("flags: utility log not JSON", "utility --original d.csv --masked d2.csv --variables b --log l.json", &["l.json"]).d().file("d2.csv", D).file("l.json", "{not json"),
        case("flags: synth unknown generator", "synth nope --out g", &["nope"]),
        case("flags: synth n 0", "synth survey-panel --n 0 --out g", &["n"]),
        case("flags: synth n huge", "synth survey-panel --n 100000000000000 --out g", &["n", "10000000"]),
        case("flags: synth unknown --set", "synth survey-panel --n 10 --set zz=1 --out g", &["zz"]),
        case("flags: panel seeds huge", "panel study --wave1 d.csv --wave2 d.csv --seeds 1..100000000000", &["seeds", "at most"]).d(),
        case("flags: panel seeds reversed", "panel study --wave1 d.csv --wave2 d.csv --seeds 5..1", &["seeds"]).d(),
        case("flags: no subcommand", "", &["Usage"]),
        case("flags: unknown subcommand", "frobnicate", &["frobnicate"]),
        case("flags: --threads 0", "run e.toml --dry-run --threads 0", &["threads"]).d().file("e.toml", EXP),
        // ---------------------------------------------------------------- CSV, broader (issue 19)
        risk_bytes("csv: BOM, quoted header and a ragged row", b"\xef\xbb\xbf\"a\",\"b\"\n1,2\n3\n", "--keys a,b", &["d.csv:3", "found 1"]),
        risk_bytes("csv: BOM and quoted header, unknown key", b"\xef\xbb\xbf\"a\",\"b\"\n1,2\n", "--keys c", &["d.csv", "'c'"]),
        risk("csv: quoted fields, too many", "a,b\n\"1\",\"2\",\"3\"\n", "--keys a,b", &["d.csv:2", "found 3"]),
        risk("csv: ragged row after many good rows", &format!("a,b\n{}3\n", "1,2\n".repeat(1000)), "--keys a,b", &["d.csv:1002", "found 1"]),
        risk("csv: huge field then an unclosed quote", &format!("{huge}\"3,4\n"), "--keys a,b", &["d.csv", "quote"]),
        risk("csv: huge column name, unknown key", &format!("{},b\n1,2\n", "x".repeat(1 << 20)), "--keys zz", &["d.csv", "'zz'"]),
        risk_bytes("csv: invalid UTF-8 in the last row", b"a,b\n1,2\n3,\xff\n", "--keys a,b", &["d.csv:3", "UTF-8"]),
        risk_bytes("csv: Latin-1 text", b"a,b\n1,caf\xe9\n", "--keys a,b", &["d.csv:2", "UTF-8"]),
        risk_bytes("csv: UTF-16 big-endian file", b"\xfe\xff\x00a\x00,\x00b\x00\n", "--keys a", &["d.csv"]),
        risk_bytes("csv: only a BOM", b"\xef\xbb\xbf", "--keys a", &["d.csv"]),
        risk_bytes("csv: BOM and header only", b"\xef\xbb\xbfa,b\n", "--keys a", &["d.csv", "no records"]),
        risk("csv: trailing delimiter in the header", "a,b,\n1,2,\n", "--keys a", &["d.csv", "column 3", "empty"]),
        risk_bytes("csv: NUL byte in a middle row", b"a,b\n1,2\n3,4\x005\n6,7\n", "--keys a,b", &["d.csv:3", "NUL"]),
        risk("csv: tab-separated file, delimiter detected", "a\tb\n1\t2\n", "--keys a --format json", &["note: d.csv", "separated by tab", "\"n_total\": 1"]).ok(),
        risk("csv: tab-separated file read as commas", "a\tb\n1\t2\n", "--keys a --delimiter ,", &["d.csv", "'a'", "try --delimiter tab"]),
        risk("csv: semicolon delimiter on a comma file", D, "--keys a --delimiter ;", &["d.csv", "'a'"]),
        risk("csv: key given twice", D, "--keys a,a", &["'a'"]),
        risk("csv: empty key name in the list", D, "--keys a,,b", &["''"]),
        case("csv: 1e999 in a key of the intruder file for nearest", "attack --intruder i.csv --released d.csv --keys b --truth id --method nearest", &["i.csv", "'b'", "row 1", "1e999"])
            .d().file("i.csv", "id,a,b\n1,x,1e999\n2,y,2\n"),
        case("csv: -inf in a numeric key for nearest", "attack --intruder i.csv --released r.csv --keys b --truth id --method nearest", &["r.csv", "'b'", "row 3", "-inf"])
            .file("i.csv", I).file("r.csv", "id,a,b\n1,x,1\n2,y,2\n3,y,-inf\n"),
        case("csv: NaN in a kmeans key", "attack --intruder i.csv --released r.csv --keys b --truth id --method kmeans --clusters 1", &["r.csv", "'b'", "NaN"])
            .file("i.csv", I).file("r.csv", "id,a,b\n1,x,1\n2,y,NaN\n3,y,2\n"),
        case("csv: NaN in a rank-swap variable", "mask --data d.csv --method rank-swap --set variables=b --set p=10 --seed 1 --out o.csv", &["d.csv", "'b'", "row 2", "NaN"])
            .file("d.csv", "id,b\n1,1\n2,NaN\n3,2\n"),
        case("csv: inf in an mdav variable", "mask --data d.csv --method mdav --set variables=b --set k=2 --seed 1 --out o.csv", &["d.csv", "'b'", "row 3", "inf"])
            .file("d.csv", "id,b\n1,1\n2,3\n3,inf\n4,2\n"),
        case("csv: NaN in a top-code variable", "mask --data d.csv --method top-bottom-code --set variables=b --set top=2 --seed 1 --out o.csv", &["d.csv", "'b'", "row 1", "NaN"])
            .file("d.csv", "id,b\n1,NaN\n2,3\n3,2\n"),
        case("csv: text in a round variable", "mask --data d.csv --method round --set variables=b --set base=5 --seed 1 --out o.csv", &["d.csv", "'b'", "row 2", "'x'"])
            .file("d.csv", "id,b\n1,1\n2,x\n3,2\n"),
        risk("csv: weight with a thousands separator", "id,a,w\n1,x,2\n2,y,\"1,000\"\n", "--keys a --weight w --measure individual", &["d.csv:3", "'w'", "1,000"]),
        risk("csv: tiny weights", "id,a,w\n1,x,2\n2,y,1e-300\n", "--keys a --weight w --measure individual", &["warning", "'w'", "below 1"]).warn(),
        risk("csv: weights far from the population size", D, "--keys a --weight w --population-size 1000", &["warning", "sum to 16", "1000"]).warn(),
        risk("csv: population measure, weights far from the population size", D, "--keys a --measure population --weight w --population-size 100", &["warning", "sum to 16", "100"]).warn(),
        risk("csv: household weights below 1", "id,a,w,h\n1,x,0.5\n2,y,0.5\n", "--keys a --measure household --weight w --group h", &["d.csv"]),
        // ---------------------------------------------------------------- schema TOML, broader
        schema("schema: missing tokens are numbers", "missing = [1, 2]\n", &["s.toml", "missing"]),
        schema("schema: type is a boolean", "[columns.a]\ntype = true\n", &["s.toml", "columns.a.type"]),
        schema("schema: column declared twice", "[columns.a]\nrole = \"key\"\n[columns.a]\nrole = \"key\"\n", &["s.toml"]),
        schema("schema: misspelt categories", "[columns.a]\ntype = \"categorical\"\ncatgories = [\"x\", \"y\"]\n", &["s.toml", "catgories", "categories"]),
        schema("schema: float type on NaN", "[columns.b]\ntype = \"float\"\n", &["d.csv:3", "'b'", "NaN"]).file("d.csv", "id,a,b\n1,x,1\n2,y,NaN\n"),
        schema("schema: integer type on 1e999", "[columns.b]\ntype = \"integer\"\n", &["d.csv:3", "'b'", "1e999"]).file("d.csv", "id,a,b\n1,x,1\n2,y,1e999\n"),
        schema("schema: date type", "[columns.a]\ntype = \"date\"\n", &["s.toml", "columns.a.type", "date"]),
        schema("schema: columns as an array of tables", "[[columns]]\nname = \"a\"\n", &["s.toml", "columns"]),
        schema("schema: role is empty", "[columns.a]\nrole = \"\"\n", &["s.toml", "columns.a.role"]),
        schema("schema: categories hold numbers", "[columns.a]\ntype = \"categorical\"\ncategories = [1, 2]\n", &["s.toml", "columns.a.categories"]),
        schema("schema: separator of a non-string type", "[columns.a]\ntype = \"set\"\nseparator = 3\n", &["s.toml", "columns.a.separator"]),
        schema("schema: weight role on a column with zero", "[columns.w]\nrole = \"weight\"\n", &["d.csv:3", "'w'", "'0'"]).file("d.csv", "id,a,b,w\n1,x,1,2\n2,y,2,0\n"),
        schema("schema: missing token list holds a table", "missing = [{a = 1}]\n", &["s.toml", "missing"]),
        // ---------------------------------------------------------------- experiment TOML, broader
        exp("experiment: seed is a float", "name = \"h\"\nseed = 1.5\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "seed"]),
        exp("experiment: data is a string", "name = \"h\"\nseed = 1\ndata = \"d.csv\"\n[scenario]\nkeys = [\"a\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "data"]),
        exp("experiment: scenario keys empty", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = []\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "keys"]),
        exp("experiment: known negative", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\nknown = -0.5\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "known"]),
        exp("experiment: known NaN", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\nknown = nan\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "known"]),
        exp("experiment: intruder_n zero", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\nintruder_n = 0\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "intruder_n"]),
        exp("experiment: intruder_n negative", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\nintruder_n = -3\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "intruder_n"]),
        exp_with("experiment: two defences with the same name", "[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "defence[2].name", "twice"]),
        exp_with("experiment: two attacks with the same name", "[[attack]]\nmethod = \"exact\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "attack[2].name", "twice"]),
        exp_with("experiment: attack threshold NaN", "[[attack]]\nmethod = \"exact\"\nthreshold = nan\n", &["e.toml", "attack[1]", "threshold"]),
        exp_with("experiment: nearest top_k 0", "[[attack]]\nmethod = \"nearest\"\ntop_k = 0\n", &["e.toml", "attack[1].top_k"]),
        exp_with("experiment: kmeans clusters 0", "[[attack]]\nmethod = \"kmeans\"\nclusters = 0\n", &["e.toml", "attack[1].clusters"]),
        exp_with("experiment: em_max_iter huge", "[[attack]]\nmethod = \"fellegi-sunter\"\nem_max_iter = 99999999999\n", &["e.toml", "attack[1].em_max_iter"]),
        exp_with("experiment: exact max_listed 0", "[[attack]]\nmethod = \"exact\"\nmax_listed = 0\n", &["e.toml", "attack[1].max_listed"]),
        exp_with("experiment: risk max_msu_size 0", "[[attack]]\nmethod = \"exact\"\n[[risk]]\nname = \"r\"\nmeasure = \"suda2\"\nmax_msu_size = 0\n", &["e.toml", "risk[1].max_msu_size"]),
        exp_with("experiment: risk keys not in the data", "[[attack]]\nmethod = \"exact\"\n[[risk]]\nname = \"r\"\nkeys = [\"zz\"]\n", &["e.toml", "zz"]),
        exp_with("experiment: report metric of an unknown attack", "[[attack]]\nmethod = \"exact\"\n[report]\nmetrics = [\"nope.twins\"]\n", &["e.toml", "report.metrics", "nope.twins"]),
        exp_with("experiment: report plot of an unknown figure", "[[attack]]\nmethod = \"exact\"\n[report]\nplot = [\"exact.twinz\"]\n", &["e.toml", "report.plot", "exact.twinz", "twins"]),
        exp_with("experiment: report loss of an unknown masking figure", "[[attack]]\nmethod = \"exact\"\n[report]\nloss = \"masking.nope\"\n", &["e.toml", "report.loss", "masking.nope"]),
        exp_with("experiment: report risk of an undeclared measure", "[[attack]]\nmethod = \"exact\"\n[report]\nrisk = \"risk.r.sample_uniques\"\n", &["e.toml", "report.risk", "risk.r.sample_uniques"]),
        exp_with("experiment: risk is a table, not a list", "[[attack]]\nmethod = \"exact\"\n[risk]\nname = \"r\"\n", &["e.toml", "risk"]),
        exp("experiment: defence is a table, not a list", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[defence]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "defence"]),
        exp_with("experiment: defence step is a table", "[[defence]]\nname = \"x\"\n[defence.step]\nmethod = \"subsample\"\nfraction = 0.5\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "step"]),
        exp_with("experiment: published without a value", "[[attack]]\nmethod = \"exact\"\n[[published]]\nsetting = \"none\"\nmetric = \"exact.twins\"\n", &["e.toml", "published[1].value"]),
        exp_with("experiment: published tolerance negative", "[[attack]]\nmethod = \"exact\"\n[[published]]\nsetting = \"none\"\nmetric = \"exact.twins\"\nvalue = 1\ntolerance = -1\n", &["e.toml", "published[1].tolerance"]),
        exp("experiment: unknown measurement-error method", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\n[[scenario.error]]\nmethod = \"nois\"\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "scenario.error[1]", "nois"]),
        exp_with("experiment: utility variable not in the data", "[[attack]]\nmethod = \"exact\"\n[utility]\nvariables = [\"zz\"]\nmeasures = [\"moments\"]\n", &["e.toml", "zz"]),
        exp("experiment: key_map to a missing column", "name = \"h\"\nseed = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"a\"]\nkey_map = { a = \"zz\" }\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "zz"]),
        exp_with("experiment: linkage given as file and inline", "[[attack]]\nmethod = \"fellegi-sunter\"\nlinkage_spec = \"l.toml\"\n[attack.linkage]\nblocking = [[\"a\"]]\n", &["e.toml", "linkage"]).file("l.toml", LINK),
        exp_with("experiment: grid of words for a number", "[[defence]]\nname = \"x\"\n[[defence.step]]\nmethod = \"local-suppression\"\nk = [\"two\"]\n[[attack]]\nmethod = \"exact\"\n", &["e.toml", "k"]),
        exp_with("experiment: attack params is a list", "[[attack]]\nmethod = \"nearest\"\nk = [1, 2]\n", &["e.toml", "attack[1]"]),
        exp_with("experiment: risk name empty", "[[attack]]\nmethod = \"exact\"\n[[risk]]\nname = \"\"\n", &["e.toml", "risk[1].name"]),
        exp("experiment: TOML with a duplicate key", "name = \"h\"\nname = \"i\"\n", &["e.toml", "name"]),
        // ---------------------------------------------------------------- pipeline TOML, broader
        pipe("pipeline: method is a number", "[[step]]\nmethod = 3\n", &["p.toml", "step[1].method"]),
        pipe("pipeline: second step bad", "[[step]]\nmethod = \"subsample\"\nfraction = 0.5\n[[step]]\nmethod = \"noise\"\nvariables = [\"b\"]\nnoise = -1\n", &["p.toml", "step[2]", "noise"]),
        pipe("pipeline: pram pd negative", "[[step]]\nmethod = \"pram\"\nvariables = [\"a\"]\npd = -0.5\n", &["p.toml", "pd"]),
        pipe("pipeline: subsample fraction above 1", "[[step]]\nmethod = \"subsample\"\nfraction = 1.5\n", &["p.toml", "fraction"]),
        pipe("pipeline: local-suppression keys empty", "[[step]]\nmethod = \"local-suppression\"\nkeys = []\nk = 2\n", &["p.toml", "keys"]),
        pipe("pipeline: noise without variables", "[[step]]\nmethod = \"noise\"\nnoise = 10\n", &["p.toml", "variables"]),
        pipe("pipeline: mdav k 0", "[[step]]\nmethod = \"mdav\"\nvariables = [\"b\"]\nk = 0\n", &["p.toml", "k"]),
        pipe("pipeline: rank-swap p negative", "[[step]]\nmethod = \"rank-swap\"\nvariables = [\"b\"]\np = -5\n", &["p.toml", "p"]),
        pipe("pipeline: round base 0", "[[step]]\nmethod = \"round\"\nvariables = [\"b\"]\nbase = 0\n", &["p.toml", "base"]),
        pipe("pipeline: round without base", "[[step]]\nmethod = \"round\"\nvariables = [\"b\"]\n", &["p.toml", "base"]),
        pipe("pipeline: recode breaks of words", "[[step]]\nmethod = \"global-recode\"\nvariables = [\"b\"]\nbreaks = [\"a\", \"b\"]\n", &["p.toml", "breaks"]),
        pipe("pipeline: step variables is a string", "[[step]]\nmethod = \"noise\"\nvariables = 3\nnoise = 10\n", &["p.toml", "variables"]),
        pipe("pipeline: k NaN", "[[step]]\nmethod = \"local-suppression\"\nkeys = [\"a\"]\nk = nan\n", &["p.toml", "k"]),
        pipe("pipeline: top-code on a text column", "[[step]]\nmethod = \"top-bottom-code\"\nvariables = [\"s\"]\ntop = 1\n", &["'s'"]),
        // ---------------------------------------------------------------- linkage spec, broader
        link("linkage: jaro-winkler threshold above 1", "[[comparison]]\ncolumn = \"a\"\nlevels = [{kind = \"jaro-winkler\", threshold = 1.5}, {kind = \"else\"}]\n", &["l.toml", "threshold"]),
        link("linkage: levenshtein threshold negative", "[[comparison]]\ncolumn = \"a\"\nlevels = [{kind = \"levenshtein\", threshold = -1}, {kind = \"else\"}]\n", &["l.toml", "threshold"]),
        link("linkage: unknown blocking function", "blocking = [[\"metaphone3(a)\"]]\n[[comparison]]\ncolumn = \"b\"\nlevels = [{kind = \"exact\"}, {kind = \"else\"}]\n", &["l.toml", "metaphone3"]),
        link("linkage: level without kind", "[[comparison]]\ncolumn = \"b\"\nlevels = [{m = 0.5}, {kind = \"else\"}]\n", &["l.toml", "kind"]),
        link("linkage: comparison without column", "[[comparison]]\nlevels = [{kind = \"exact\"}, {kind = \"else\"}]\n", &["l.toml", "column"]),
        link("linkage: comparison on a column outside the keys", "blocking = [[\"a\"]]\n[[comparison]]\ncolumn = \"s\"\nlevels = [{kind = \"exact\"}, {kind = \"else\"}]\n", &["'s'", "keys"]),
        link("linkage: m is a string", "[[comparison]]\ncolumn = \"b\"\nlevels = [{kind = \"exact\", m = \"high\"}, {kind = \"else\"}]\n", &["l.toml", "m"]),
        link("linkage: comparison is a table", "[comparison]\ncolumn = \"b\"\nlevels = [{kind = \"exact\"}, {kind = \"else\"}]\n", &["l.toml", "comparison"]),
        // ---------------------------------------------------------------- flags, broader
        risk("flags: risk unknown missing policy", D, "--keys a --missing everything", &["missing", "everything"]),
        risk("flags: risk k_anonymity 0", D, "--keys a --set k_anonymity=0", &["k_anonymity"]),
        risk("flags: risk max_global_risk 1", D, "--keys a --measure individual --set max_global_risk=1", &["max_global_risk"]),
        risk("flags: risk alpha without wildcard", D, "--keys a --measure individual --set alpha=0.5", &["alpha", "wildcard"]),
        risk("flags: risk intruder share above 1", D, "--keys a --population-size 100 --population-uniques 1 --intruder-share 2", &["intruder_share"]),
        risk("flags: risk population size negative", D, "--keys a --population-size -5", &["population"]),
        risk("flags: risk population size infinite", D, "--keys a --population-size inf", &["population", "inf"]),
        risk("flags: risk unknown log-linear model", D, "--keys a --measure population --sampling-fraction 0.5 --loglinear threeway", &["threeway"]),
        risk("flags: risk suda cost limit negative", D, "--keys a,b --measure suda2 --suda-cost-limit -1", &["cost_limit"]),
        risk("flags: risk recursive_c 0", D, "--keys a --measure l-diversity --sensitive s --set recursive_c=0 --set recursive_l=2", &["recursive_c"]),
        risk("flags: risk unknown format", D, "--keys a --format yaml", &["yaml"]),
        risk("flags: risk per-record into a missing directory", D, "--keys a --per-record nodir/x.csv", &["nodir"]),
        risk("flags: risk household without group", D, "--keys a --measure household", &["group"]),
        risk("flags: risk population without size, fraction or weight", D, "--keys a --measure population", &["population"]),
        risk("flags: risk set-valued column missing", D, "--keys a --set-valued zz", &["'zz'"]),
        risk("flags: risk unknown global_risk_denominator", D, "--keys a --measure individual --set global_risk_denominator=some", &["global_risk_denominator", "some"]),
        risk("flags: household unknown denominator", "id,a,h\n1,x,1\n2,y,1\n", "--keys a --measure household --group h --set global_risk_denominator=half", &["global_risk_denominator", "half"]),
        risk("flags: risk weight column is a key too", "id,a,w\n1,x,2\n2,y,abc\n", "--keys a,w --weight w --measure individual", &["'w'"]),
        risk("flags: risk dis fraction 1", D, "--keys a,b --measure suda2 --dis-fraction 1", &["dis_fraction"]),
        risk("flags: risk max msu size huge", D, "--keys a,b --measure suda2 --max-msu-size -5", &["max_msu_size"]),
        risk("flags: risk unique threshold huge", D, "--keys a --unique-threshold 99999999999999999999", &["unique"]),
        attack("flags: exact max_listed 0", "--set max_listed=0", &["max_listed"]),
        attack("flags: exact max_listed too large", "--set max_listed=99999999999", &["max_listed"]),
        attack("flags: nearest top_k negative", "--method nearest --top-k -1", &["top_k"]),
        attack("flags: kmeans clusters 0", "--method kmeans --clusters 0", &["clusters"]),
        attack("flags: tolerance 0", "--sensitive s --tolerance 0", &["tolerance"]),
        attack("flags: tolerance NaN", "--sensitive s --tolerance NaN", &["tolerance"]),
        attack("flags: fellegi-sunter threshold NaN", "--method fellegi-sunter --threshold NaN", &["threshold"]),
        attack("flags: fellegi-sunter threshold 1", "--method fellegi-sunter --threshold 1", &["threshold"]),
        attack("flags: em tolerance 0", "--method fellegi-sunter --em-tolerance 0", &["em_tolerance"]),
        attack("flags: em max iter 0", "--method fellegi-sunter --em-max-iter 0", &["em_max_iter"]),
        attack("flags: unknown assignment", "--method fellegi-sunter --assignment best", &["assignment", "best"]),
        attack("flags: unknown metric", "--method nearest --metric manhattan", &["metric", "manhattan"]),
        attack("flags: unknown string metric", "--method nearest --string-metric soundex", &["soundex"]),
        attack("flags: weight for an unknown key", "--method nearest --weights zz=2", &["zz"]),
        attack("flags: negative key weight", "--method nearest --weights b=-1", &["b"]),
        attack("flags: key-map without =", "--key-map a", &["key"]),
        attack("flags: explain-pair malformed", "--method fellegi-sunter --explain-pair x", &["explain-pair"]),
        attack("flags: explain-pair out of range", "--method fellegi-sunter --explain-pair 100,1", &["100"]),
        attack("flags: sensitive-truth column missing", "--sensitive s --sensitive-truth zz", &["zz"]),
        attack("flags: link attack with two keys", "--method link", &["link", "one"]),
        attack("flags: unknown training", "--method fellegi-sunter --set training=half", &["training", "half"]),
        attack("flags: twins-only without truth ids", "", &["truth"]).argv(&["attack", "--intruder", "i.csv", "--released", "d.csv", "--keys", "a,b", "--twins-only"]),
        attack("flags: truth-intruder without truth-released", "", &["--truth-released"]).argv(&["attack", "--intruder", "i.csv", "--released", "d.csv", "--keys", "a,b", "--truth-intruder", "id"]),
        attack("flags: intruder schema missing", "--intruder-schema nope.toml", &["nope.toml"]),
        attack("flags: released schema broken", "--released-schema s.toml", &["s.toml"]).file("s.toml", "[[[\n"),
        mask("flags: mask pram pd 2", "--method pram --set variables=a --set pd=2", &["pd"]),
        mask("flags: mask negative seed", "", &["'-1'"]).argv(&["mask", "--data", "d.csv", "--method", "subsample", "--set", "fraction=0.5", "--seed", "-1", "--out", "o.csv"]),
        mask("flags: mask misspelt parameter", "--method noise --set variables=b --set nois=3", &["nois", "noise"]),
        mask("flags: mask noise on a text column", "--method noise --set variables=s --set noise=10", &["'s'"]),
        mask("flags: mask --out into a missing directory", "", &["nodir"]).argv(&["mask", "--data", "d.csv", "--method", "subsample", "--set", "fraction=0.5", "--seed", "1", "--out", "nodir/o.csv"]),
        mask("flags: mask --log into a missing directory", "--method subsample --set fraction=0.5 --log nodir/l.json", &["nodir"]),
        mask("flags: mask unknown format", "--method subsample --set fraction=0.5 --format yaml", &["yaml"]),
        mask("flags: mask round base negative", "--method round --set variables=b --set base=-5", &["base"]),
        mask("flags: mask rank-swap p 200", "--method rank-swap --set variables=b --set p=200", &["p"]),
        mask("flags: mask subsample fraction NaN", "--method subsample --set fraction=NaN", &["fraction"]),
        case("flags: utility masked file missing", "utility --original d.csv --masked nope.csv --variables b", &["nope.csv"]).d(),
        case("flags: utility model with an unknown variable", "", &["zz"]).d().file("d2.csv", D).argv(&["utility", "--original", "d.csv", "--masked", "d2.csv", "--variables", "b", "--model", "zz ~ b"]),
        case("flags: utility unknown family", "utility --original d.csv --masked d2.csv --variables b --model b~a --family gamma2", &["gamma2"]).d().file("d2.csv", D),
        case("flags: utility masked has other columns", "utility --original d.csv --masked d2.csv --variables b", &["d2.csv", "'b'"]).d().file("d2.csv", "id,c\n1,2\n"),
        case("flags: utility unknown format", "utility --original d.csv --masked d2.csv --variables b --format yaml", &["yaml"]).d().file("d2.csv", D),
        case("flags: synth n negative", "synth survey-panel --n -5 --out g", &["-5"]),
        case("flags: synth seed not a number", "synth survey-panel --n 10 --seed abc --out g", &["abc"]),
        case("flags: synth --set without =", "synth survey-panel --n 10 --set zz --out g", &["zz"]),
        case("flags: synth linkage-pair overlap above 1", "synth linkage-pair --n 10 --set overlap=1.5 --out g", &["overlap"]),
        case("flags: synth linkage-pair typo negative", "synth linkage-pair --n 10 --set typo=-0.1 --out g", &["typo"]),
        case("flags: synth linkage-pair n_b 0", "synth linkage-pair --n 10 --set n_b=0 --out g", &["n_b"]),
        case("flags: synth linkage-pair missing NaN", "synth linkage-pair --n 10 --set missing=NaN --out g", &["missing"]),
        case("flags: synth unknown generator parameter", "synth linkage-pair --n 10 --set overlapp=0.5 --out g", &["overlapp", "overlap"]),
        case("flags: synth --out onto the current directory's file", "synth linkage-pair --n 10 --out d.csv", &["d.csv"]).d(),
        case("flags: run file missing, dry run", "run nope.toml", &["nope.toml"]),
        case("flags: run --out is a file", "run e.toml --out d.csv", &["d.csv"]).d().file("e.toml", EXP),
        case("flags: run --threads not a number", "run e.toml --dry-run --threads many", &["many"]).d().file("e.toml", EXP),
        case("flags: panel attack unknown mode", "panel attack --wave1 d.csv --wave2 d2.csv --mode guess --scenario 2", &["guess"]).d().file("d2.csv", D),
        case("flags: panel attack unknown pool", "panel attack --wave1 d.csv --wave2 d2.csv --mode match --scenario 2 --pool some", &["some"]).d().file("d2.csv", D),
        case("flags: panel attack wave2 missing", "panel attack --wave1 d.csv --wave2 nope.csv --mode match --scenario 2", &["nope.csv"]).d(),
        case("flags: panel attack link column missing", "panel attack --wave1 d.csv --wave2 d2.csv --mode match --scenario 2 --link zz", &["zz"]).d().file("d2.csv", D),
        case("flags: panel protect unknown method", "panel protect --wave1 d.csv --wave2 d2.csv --method shuffle --rho 0.1 --seed 1 --out o.csv", &["shuffle"]).d().file("d2.csv", D),
        case("flags: panel study seeds not numbers", "panel study --wave1 d.csv --wave2 d.csv --seeds abc", &["seeds"]).d(),
        case("flags: panel without a subcommand", "panel", &["Usage"]),
        // ---------------------------------------------------------------- write over an input
        mask("overwrite: mask --out is the data", "--method subsample --set fraction=0.5", &["--out", "d.csv", "input"]).argv(&["mask", "--data", "d.csv", "--method", "subsample", "--set", "fraction=0.5", "--seed", "1", "--out", "d.csv"]),
        mask("overwrite: mask --out ./d.csv", "", &["--out", "input"]).argv(&["mask", "--data", "d.csv", "--method", "subsample", "--set", "fraction=0.5", "--seed", "1", "--out", "./d.csv"]),
        mask("overwrite: mask --out sub/../d.csv", "", &["--out", "input"]).argv(&["mask", "--data", "d.csv", "--method", "subsample", "--set", "fraction=0.5", "--seed", "1", "--out", "sub/../d.csv"]).file("sub/keep", ""),
        mask("overwrite: mask --out a symlink to the data", "", &["--out", "input"]).argv(&["mask", "--data", "d.csv", "--method", "subsample", "--set", "fraction=0.5", "--seed", "1", "--out", "l.csv"]).link("l.csv", "d.csv"),
        mask("overwrite: mask --out is the pipeline", "", &["--out", "p.toml", "input"]).argv(&["mask", "--data", "d.csv", "--pipeline", "p.toml", "--seed", "1", "--out", "p.toml"]).file("p.toml", PIPE),
        mask("overwrite: mask --out is the schema", "", &["--out", "input"]).argv(&["mask", "--data", "d.csv", "--method", "subsample", "--set", "fraction=0.5", "--seed", "1", "--out", "d.schema.toml"]).file("d.schema.toml", "[columns.a]\nrole = \"key\"\n"),
        mask("overwrite: mask --log is the data", "", &["--log", "input"]).argv(&["mask", "--data", "d.csv", "--method", "subsample", "--set", "fraction=0.5", "--seed", "1", "--out", "o.csv", "--log", "./d.csv"]),
        mask("overwrite: mask --log is --out", "", &["--log", "--out"]).argv(&["mask", "--data", "d.csv", "--method", "subsample", "--set", "fraction=0.5", "--seed", "1", "--out", "o.csv", "--log", "./o.csv"]),
        risk("overwrite: risk --per-record is the data", D, "--keys a --per-record d.csv", &["--per-record", "input"]),
        risk("overwrite: risk --per-record ./d.csv", D, "--keys a --per-record ./d.csv", &["--per-record", "input"]),
        risk("overwrite: risk --per-record symlink", D, "--keys a --per-record l.csv", &["--per-record", "input"]).link("l.csv", "d.csv"),
        risk("overwrite: risk --out is the data", D, "--keys a --out d.csv", &["--out", "input"]),
        risk("overwrite: risk --out is the schema", D, "--keys a --schema s.toml --out ./s.toml", &["--out", "input"]).file("s.toml", ""),
        attack("overwrite: attack --out is the released file", "--out d.csv", &["--out", "input"]),
        attack("overwrite: attack --per-record is the intruder file", "--per-record ./i.csv", &["--per-record", "input"]),
        attack("overwrite: attack --per-record symlink to released", "--per-record l.csv", &["--per-record", "input"]).link("l.csv", "d.csv"),
        attack("overwrite: attack --out is the linkage spec", "--method fellegi-sunter --set linkage_spec=l.toml --out ./l.toml", &["--out", "input"]).file("l.toml", LINK),
        case("overwrite: utility --out is the original", "utility --original d.csv --masked d2.csv --variables b --out ./d.csv", &["--out", "input"]).d().file("d2.csv", D),
        case("overwrite: utility --out is the masked (symlink)", "utility --original d.csv --masked d2.csv --variables b --out l.csv", &["--out", "input"]).d().file("d2.csv", D).link("l.csv", "d2.csv"),
        case("overwrite: utility --out is the log", "utility --original d.csv --masked d2.csv --variables b --log g.json --out g.json", &["--out", "input"]).d().file("d2.csv", D).file("g.json", "{}"),
        case("overwrite: run --out is the experiment file's directory file", "run e.toml --out e.toml", &["--out"]).d().file("e.toml", EXP),
        case("overwrite: panel protect --out is wave2", "panel protect --wave1 d.csv --wave2 d2.csv --method swap --rho 0.1 --seed 1 --out ./d2.csv", &["--out", "input"]).d().file("d2.csv", D),
        case("overwrite: panel attack --per-record is wave1", "panel attack --wave1 d.csv --wave2 d2.csv --mode match --scenario 2 --per-record d.csv", &["--per-record", "input"]).d().file("d2.csv", D),
        case("overwrite: synth --out onto a file", "synth survey-panel --n 10 --out d.csv", &["d.csv"]).d(),
        // ---------------------------------------------------------------- issue 38: data as users hold it
        risk("i38: ';' file, delimiter detected and said", SEMI, "--keys urbrur,roof --format json", &["note: d.csv", "separated by ';'", "\"n_total\": 4"]).ok(),
        risk("i38: ';' file read with --delimiter ,", SEMI, "--keys urbrur,roof --delimiter ,", &["d.csv:2", "expected 1 fields", "try --delimiter ';'"]),
        risk("i38: ';' file without decimals read with --delimiter ,", "urbrur;roof\n1;2\n2;4\n", "--keys urbrur,roof --delimiter ,", &["d.csv", "no column named 'urbrur'", "try --delimiter ';'"]),
        risk("i38: ';' file and decimal commas, numbers read", SEMI, "--keys urbrur --weight w --measure individual --format json", &["decimal comma", "'1200,5'", "\"n_total\": 4"]).ok(),
        case("i38: utility on decimal commas keeps moments", "utility --original d.csv --masked d.csv --variables income,w --format json", &["mean_rel_diff_max", "il1s", "decimal comma"]).file("d.csv", SEMI).ok(),
        case("i38: utility says which default measures it left out", "utility --original d.csv --masked d.csv --variables roof,income --format json", &["note:", "left out", "'roof' is categorical, row 1 holds 'tin'", "pmse"]).file("d.csv", "roof,income\ntin,1200\ntile,900\ntin,1500\nslate,700\n").ok(),
        risk_bytes("i38: UTF-16 (Excel Unicode text) with records", &utf16("a\tb\r\n1\tx\r\n2\ty\r\n1\tx\r\n"), "--keys a,b --format json", &["\"n_total\": 3", "\"sample_uniques\": 1"]).ok(),
        risk_bytes("i38: UTF-16 cut in the middle of a character", &utf16("a,b\n1,2\n")[..11], "--keys a", &["d.csv", "UTF-16", "odd"]),
        risk("i38: header only, a numeric measure", "id,a,w\n", "--keys a --weight w --measure individual", &["d.csv", "no records", "id, a, w"]),
        risk("i38: header only, beside a schema", "a,b\n", "--keys a", &["d.csv", "no records"]).file("d.schema.toml", "[columns.a]\ntype = \"categorical\"\n"),
        attack("i38: truth is also a key", "", &["'id' is the ground truth", "--truth"]).argv(&["attack", "--intruder", "i.csv", "--released", "d.csv", "--keys", "a,id", "--truth", "id"]),
        attack("i38: every unknown key of an attack at once", "", &["4 problems", "i.csv: no column named 'aa'", "d.csv: no column named 'bb'"]).argv(&["attack", "--intruder", "i.csv", "--released", "d.csv", "--keys", "aa,bb", "--truth", "id"]),
        mask("i38: mask --keys and --k flags", "--method local-suppression --keys a,b --k 2", &["rows_out", "suppressions"]).ok(),
        mask("i38: mask flag given twice", "--method local-suppression --keys a,b --k 2 --set k=3", &["'k'", "both"]),
        mask("i38: mask flags without --method", "--pipeline p.toml --k 2", &["--k", "--method"]).file("p.toml", PIPE),
        mask("i38: mask flag the method does not take", "--method noise --variables b --k 2 --set noise=5", &["k: unknown key", "noise"]),
        risk("i38: three typos reported at once", "urbrur,roof,sex,weight\n1,2,1,10\n2,4,2,20\n", "--keys urbrur,rooof,Sex --weight weigth --measure individual", &["3 problems", "'rooof' (did you mean 'roof'?)", "'Sex' (did you mean 'sex'?)", "weight:", "'weigth' (did you mean 'weight'?)"]),
        risk("i38: --k for the k-anonymity counts", D, "--keys a,b --k 2 --format json", &["\"records_fk_below_k\": 3", "\"records_fk_at_most_k\": 5"]).ok(),
        risk("i38: all-missing sensitive column", "id,a,s\n1,x,\n2,y,NA\n3,x,\n", "--keys a --sensitive s", &["warning", "sensitive column 's' has no observed value"]).warn(),
        exp_with("i38: dry run, PRAM on an integer column", "[[defence]]\nname = \"p\"\n[[defence.step]]\nmethod = \"pram\"\nvariables = [\"b\"]\n[[attack]]\nmethod = \"exact\"\n", &["defence[2].step[1].variables", "'b' is integer", "categorical"]),
        exp_with("i38: dry run, a recode map naming no level", "[[defence]]\nname = \"r\"\n[[defence.step]]\nmethod = \"global-recode\"\nvariables = [\"a\"]\nmap = { x = \"X\", z = \"Z\" }\n[[attack]]\nmethod = \"exact\"\n", &["defence[2].step[1].map", "'z' is not a value of 'a'", "x, y"]),
        exp_with("i38: dry run, a utility measure on a recoded column", "[[defence]]\nname = \"r\"\n[[defence.step]]\nmethod = \"global-recode\"\nvariables = [\"b\"]\nbreaks = [0, 2, 9]\n[[attack]]\nmethod = \"exact\"\n[utility]\nmeasures = [\"moments\"]\nvariables = [\"b\", \"w\"]\n", &["utility.variables", "'b' is categorical", "moments"]),
        exp_with("i38: dry run, every problem of the file at once", "[[defence]]\nname = \"p\"\n[[defence.step]]\nmethod = \"pram\"\nvariables = [\"b\"]\n[[attack]]\nmethod = \"exact\"\nkeys = [\"a\", \"id\"]\n[utility]\nmeasures = [\"moments\"]\nvariables = [\"s\"]\n", &["3 problems", "categorical", "ground truth", "moments needs numeric"]),
        case("i38: dry run of a 10,000,000-record generator generates nothing", "run e.toml --dry-run --out o", &["3 settings", "output: o (0 of 3 runs stored)"]).file("e.toml", BIG_GENERATOR).ok().mem(8192),
        case("i38: a measure failing in one setting keeps the others", "run e.toml --out o", &["warning", "setting 'flat'", "utility measure 'ci-overlap' failed", "singular", "'x' is a linear combination"]).file("d.csv", REGRESSION).file("e.toml", ISOLATED).warn(),
        case("i38: regression with money-scale predictors", "utility --original d.csv --masked d.csv --model y~a+b --measure ci-overlap --format json", &["ci_overlap_mean", "1.0"]).file("d.csv", MONEY).ok(),
        case("i38: regression, aliased term named", "utility --original d.csv --masked d.csv --model y~x+z+xz --measure ci-overlap", &["singular", "'xz' is a linear combination", "NA"]).file("d.csv", REGRESSION),
        case("i38: dalenius-census at the tiny size", "run e.toml --tiny --out o", &["destruction (k=4)", "report: o/report.html"]).file("e.toml", include_str!("../../../experiments/dalenius-census.toml")).ok().mem(8192),
        case("i38: a damaged SPSS file", "risk --data s.sav --keys region", &["s.sav", "SPSS"]).bytes("s.sav", &include_bytes!("../../data/tests/fixtures/statfiles/survey.sav")[..300]),
        case("i38: a damaged Stata file", "risk --data s.dta --keys region", &["s.dta", "Stata"]).bytes("s.dta", &include_bytes!("../../data/tests/fixtures/statfiles/survey.dta")[..300]),
        case("i38: a damaged SAS file", "risk --data s.sas7bdat --keys region", &["s.sas7bdat", "SAS"]).bytes("s.sas7bdat", &include_bytes!("../../data/tests/fixtures/statfiles/survey.sas7bdat")[..600]),
        case("i38: a numeric measure on text names the row and value", "utility --original d.csv --masked d.csv --variables s --measure il1s", &["'s'", "row 1 holds 'p'"]).d(),
    ]
}

/// `text` as UTF-16LE with its byte-order mark (Excel's "Unicode text").
fn utf16(text: &str) -> Vec<u8> {
    let mut out = vec![0xff, 0xfe];
    for u in text.encode_utf16() {
        out.extend(u.to_le_bytes());
    }
    out
}

/// A `;`-separated file with decimal commas, as spreadsheets in much of Europe save it.
const SEMI: &str = "urbrur;roof;income;w\n1;2;1200,5;2,5\n2;4;900;3\n1;2;1500,25;2\n2;2;700,5;4\n";

/// A census generator of 10,000,000 records with three settings.
const BIG_GENERATOR: &str = "name = \"big\"\nseed = 3\nreplicates = 1\n[data]\ngenerator = \"census\"\nn = 10000000\nparams = { keys = 6 }\nreleased = \"sample.csv\"\nintruder = \"population.csv\"\ntruth = \"person_id\"\n[scenario]\nkeys = [\"k01\", \"k02\"]\nintruder_n = 100\n[[defence]]\nname = \"none\"\n[[defence]]\nname = \"recode\"\n[[defence.step]]\nmethod = \"global-recode\"\nvariables = [\"k01\"]\nmap = { \"0\" = \"a\" }\n[[defence]]\nname = \"pram\"\n[[defence.step]]\nmethod = \"pram\"\nvariables = [\"k03\"]\n[[attack]]\nmethod = \"exact\"\n";

/// x, z and y = 1 + 2x − z + noise, with xz = x + z (rank deficient) and a truth id.
const REGRESSION: &str = "id,k,x,z,xz,y\n1,a,1,4,5,0.1\n2,b,2,1,3,3.9\n3,a,3,5,8,1.2\n4,b,4,2,6,7.1\n5,a,5,3,8,8.0\n6,b,6,6,12,7.2\n7,a,7,1,8,13.9\n8,b,8,2,10,15.1\n";

/// An experiment on `REGRESSION` where top-coding x at 0 makes `y ~ x` unfittable in one setting.
const ISOLATED: &str = "name = \"iso\"\nseed = 1\nreplicates = 1\n[data]\nreleased = \"d.csv\"\ntruth = \"id\"\n[scenario]\nkeys = [\"k\"]\nknown = 0.5\n[[defence]]\nname = \"none\"\n[[defence]]\nname = \"flat\"\n[[defence.step]]\nmethod = \"top-bottom-code\"\nvariables = [\"x\"]\ntop = 0\n[[attack]]\nmethod = \"exact\"\n[utility]\nmeasures = [\"moments\", \"ci-overlap\"]\nvariables = [\"x\", \"y\"]\nmodel = \"y ~ x\"\n";

/// Money-scale predictors (condition number about 1e8), as sdcMicro's testdata has them.
const MONEY: &str = "a,b,y\n90929693,116258.5,57800000\n27338058,279345,25300000\n26524717,6547.5,4040000\n46820000,12.25,56000000\n11111111,900000.75,1200000\n52250000,45000,33000000\n";

/// Every regular file under `dir` (symlinks as their link text) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            if meta.file_type().is_symlink() {
                let t = std::fs::read_link(&p).unwrap();
                out.insert(rel, t.to_string_lossy().as_bytes().to_vec());
            } else if meta.is_dir() {
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[String], cwd: &Path) -> Outcome {
    run_limited(args, cwd, None)
}

/// Runs the binary, under an address-space limit of `mem_mib` MiB when given (`ulimit -v` in
/// a shell that then execs it).
fn run_limited(args: &[String], cwd: &Path, mem_mib: Option<u64>) -> Outcome {
    let bin = env!("CARGO_BIN_EXE_intruder");
    let mut cmd = match mem_mib {
        Some(mib) => {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", mib * 1024))
                .arg(bin)
                .args(args);
            c
        }
        None => {
            let mut c = Command::new(bin);
            c.args(args);
            c
        }
    };
    let mut child = cmd
        .current_dir(cwd)
        .env("RAYON_NUM_THREADS", "2")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run intruder");
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t1 = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let t2 = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = String::from_utf8_lossy(&t1.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&t2.join().unwrap()).into_owned();
    Outcome {
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
    }
}

/// Runs one case; returns what went wrong.
fn check(c: &Case) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in &c.files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    for (l, t) in &c.links {
        std::os::unix::fs::symlink(t, dir.path().join(l)).unwrap();
    }
    let before = snapshot(dir.path());
    let o = run_limited(&c.args, dir.path(), c.mem_mib);
    let after = snapshot(dir.path());
    let mut wrong = Vec::new();
    let mut unmet = Vec::new();
    match (c.expect, o.code) {
        (_, None) => wrong.push("killed after 120 s or by a signal".to_string()),
        (Expect::Fail, Some(1 | 2)) => {}
        (Expect::Warn | Expect::Ok, Some(0)) => {}
        (_, Some(0)) if c.open.is_some() => unmet.push("exit status 0".to_string()),
        (_, Some(code)) => wrong.push(format!("exit status {code}")),
    }
    if o.stderr.contains("panicked") || o.stderr.contains("RUST_BACKTRACE") {
        wrong.push("panicked".into());
    }
    if c.expect == Expect::Warn && !o.stderr.contains("warning") {
        unmet.push("no warning".into());
    }
    let said = if c.expect == Expect::Ok {
        format!("{}\n{}", o.stdout, o.stderr)
    } else {
        o.stderr.clone()
    };
    for m in &c.must {
        if !said.contains(m.as_str()) {
            unmet.push(format!("message lacks {m:?}"));
        }
    }
    if let Some(why) = c.open {
        if !unmet.is_empty() {
            eprintln!("open (issue 19): {}: {why}: {}", c.name, unmet.join("; "));
        }
    } else {
        wrong.extend(unmet);
    }
    for (p, bytes) in &before {
        match after.get(p) {
            Some(b) if b == bytes => {}
            Some(_) => wrong.push(format!("input {} modified", p.display())),
            None => wrong.push(format!("input {} removed", p.display())),
        }
    }
    for p in after.keys().filter(|p| !before.contains_key(*p)) {
        let tmp = p.to_string_lossy().ends_with(".tmp");
        if (c.expect == Expect::Fail && c.open.is_none()) || tmp {
            wrong.push(format!("left {}", p.display()));
        }
    }
    if wrong.is_empty() {
        None
    } else {
        Some(format!(
            "{} [intruder {}]: {}\n    stderr: {}",
            c.name,
            c.args.join(" "),
            wrong.join("; "),
            o.stderr.trim().replace('\n', "\n            ")
        ))
    }
}

#[test]
fn catalogue_has_at_least_120_distinct_cases() {
    let cases = cases();
    assert!(cases.len() >= 120, "{} cases", cases.len());
    let mut names: Vec<&str> = cases.iter().map(|c| c.name).collect();
    names.sort();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n, "case names are unique");
}

#[test]
fn every_hostile_input_is_a_clear_error() {
    let cases = cases();
    let only = std::env::var("HOSTILE_ONLY").ok();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(c) = cases.get(i) else { break };
                    if only.as_deref().is_some_and(|o| !c.name.contains(o)) {
                        continue;
                    }
                    if let Some(f) = check(c) {
                        failures.lock().unwrap().push((i, f));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures
            .into_iter()
            .map(|(_, f)| f)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A temporary file left by an interrupted write (`.NAME.PID.tmp` beside the target) is
/// removed on the next write to the same target.
#[test]
fn stale_temporary_file_is_removed_on_next_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("d.csv"), D).unwrap();
    let stale = dir.path().join(".o.csv.999999999.tmp");
    std::fs::write(&stale, "half a file").unwrap();
    let other = dir.path().join(".other.csv.999999999.tmp");
    std::fs::write(&other, "not ours").unwrap();
    let o = run(
        &"mask --data d.csv --method subsample --set fraction=0.5 --seed 1 --out o.csv"
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>(),
        dir.path(),
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(dir.path().join("o.csv").exists());
    assert!(!stale.exists(), "stale temporary file left");
    assert!(
        other.exists(),
        "another target's temporary file is not ours to remove"
    );
}

/// A missing file is named once with its reason, not `FILE: REASON: REASON`.
#[test]
fn a_missing_file_states_its_reason_once() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        "risk --data nope.csv --keys a",
        "attack --intruder nope.csv --released nope2.csv --keys a --truth id",
        "mask --data d.csv --pipeline nope.toml --seed 1 --out o.csv",
    ] {
        std::fs::write(dir.path().join("d.csv"), D).unwrap();
        let o = run(
            &args
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>(),
            dir.path(),
        );
        assert!(matches!(o.code, Some(1 | 2)), "{args}: {}", o.stderr);
        assert!(o.stderr.contains("nope"), "{args}: {}", o.stderr);
        let reason = "No such file or directory";
        assert_eq!(o.stderr.matches(reason).count(), 1, "{args}: {}", o.stderr);
    }
}
