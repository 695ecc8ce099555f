//! Hashing for ids and seeds: FNV-1a over bytes, the seed of a random step, and the fingerprint
//! of input files. Nothing here depends on a path, the working directory or the thread count.

use std::io::Read;
use std::path::Path;

use crate::RunnerError;

/// The toolkit version written into every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = Fnv::new();
    h.write(bytes);
    h.finish()
}

/// An incremental FNV-1a hasher (64 bits).
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Fnv {
    /// A fresh hasher.
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    /// Adds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

/// The seed of random step `step` of a run: from the experiment seed, a run key and the step
/// name, never from thread ids.
pub fn derive_seed(seed: u64, key: &str, step: &str) -> u64 {
    let mut s = seed.to_le_bytes().to_vec();
    s.extend_from_slice(key.as_bytes());
    s.push(0);
    s.extend_from_slice(step.as_bytes());
    // splitmix64 finaliser over FNV, to spread nearby keys.
    let mut z = fnv1a(&s).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Adds the content of a file (its length, then its bytes) to `h`; a missing optional file adds
/// a marker instead. Only the content counts: two copies of a file at different paths hash
/// alike.
pub fn hash_file(h: &mut Fnv, path: &Path) -> Result<(), RunnerError> {
    let io = |source| RunnerError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    h.write(&len.to_le_bytes());
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        h.write(&buf[..n]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_known_values() {
        // FNV-1a 64 test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        let mut h = Fnv::new();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.finish(), fnv1a(b"foobar"));
    }

    #[test]
    fn file_content_not_path() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.csv"), "x\n1\n").unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("sub/b.csv"), "x\n1\n").unwrap();
        std::fs::write(d.path().join("c.csv"), "x\n2\n").unwrap();
        let h = |p: &str| {
            let mut f = Fnv::new();
            hash_file(&mut f, &d.path().join(p)).unwrap();
            f.finish()
        };
        assert_eq!(h("a.csv"), h("sub/b.csv"));
        assert_ne!(h("a.csv"), h("c.csv"));
    }
}
