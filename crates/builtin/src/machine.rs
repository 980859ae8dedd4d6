//! Whether this computer can run the built-in model at a useful speed: a CPU with the x86-64-v3
//! instructions ggml is built for here (AVX2, FMA, F16C), and enough free memory for the
//! weights plus the context. Checked before loading, so a machine that cannot run it gets a
//! reason, never an illegal-instruction crash or a swap-bound crawl.

use std::path::Path;

/// Why the built-in model cannot run here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    #[error(
        "this computer's processor lacks {0}, which the built-in model needs (any x86-64 processor from about 2015 on has it)"
    )]
    MissingCpuFeature(&'static str),
    #[error("the built-in model runs only on x86-64 processors in this build")]
    UnsupportedArch,
    #[error(
        "it needs about {needed_mb} MB of free memory and {available_mb} MB are free; close other programs or use a model server"
    )]
    TooLittleMemory { needed_mb: u64, available_mb: u64 },
    #[error("no model file at {0}: download it in Settings or choose a GGUF file you have")]
    NoModelFile(String),
}

/// Memory beyond the file's size: the context's KV cache (8k tokens of a 1.5B model in f16,
/// about 230 MB), compute buffers and the runtime. Measured: 1.94 GB resident for a 1.1 GB file.
const OVERHEAD_BYTES: u64 = 900 * 1024 * 1024;

/// The instructions ggml was compiled for (see .cargo/config.toml).
pub fn cpu() -> Result<(), Unavailable> {
    #[cfg(target_arch = "x86_64")]
    {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return Err(Unavailable::MissingCpuFeature("AVX2"));
        }
        if !std::arch::is_x86_feature_detected!("fma") {
            return Err(Unavailable::MissingCpuFeature("FMA"));
        }
        if !std::arch::is_x86_feature_detected!("f16c") {
            return Err(Unavailable::MissingCpuFeature("F16C"));
        }
        Ok(())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Err(Unavailable::UnsupportedArch)
    }
}

/// Memory for a model file of `file_bytes`, against what the system says is available.
pub fn memory(file_bytes: u64) -> Result<(), Unavailable> {
    let needed = file_bytes + OVERHEAD_BYTES;
    match available_memory() {
        Some(available) if available < needed => Err(Unavailable::TooLittleMemory {
            needed_mb: needed / (1024 * 1024),
            available_mb: available / (1024 * 1024),
        }),
        // Unknown (not Linux, or /proc unreadable): the load itself will tell.
        _ => Ok(()),
    }
}

/// Both checks for a model file (which must exist).
pub fn check(model: &Path) -> Result<(), Unavailable> {
    cpu()?;
    let len = std::fs::metadata(model)
        .map_err(|_| Unavailable::NoModelFile(model.display().to_string()))?
        .len();
    memory(len)
}

/// `MemAvailable` from /proc/meminfo: free memory plus what the kernel can reclaim (the page
/// cache, which holds the model file itself after a first load).
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read_in_kilobytes() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:    2048 kB\n";
        assert_eq!(parse_meminfo(text), Some(2048 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn a_missing_file_is_named() {
        let err = check(Path::new("/nonexistent/model.gguf"));
        // On a CPU without AVX2 the CPU is the reason; otherwise the file.
        if cpu().is_ok() {
            assert!(matches!(err, Err(Unavailable::NoModelFile(_))));
        }
    }

    #[test]
    fn too_little_memory_is_a_reason_in_words() {
        let e = Unavailable::TooLittleMemory {
            needed_mb: 2000,
            available_mb: 500,
        };
        assert!(e.to_string().contains("2000 MB"));
    }
}
