//! The machine's processes as /proc shows them: what a test checks is left running.

/// Whether process `pid` is running (a zombie is not).
pub fn alive(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    !stat.is_empty() && !stat.contains(") Z")
}

/// Processes of the machine running `sleep SECONDS` (zombies aside): a test's command sleeps
/// for a number no other program uses, and counts what is left of it.
pub fn sleeping(seconds: &str) -> usize {
    let want = format!("sleep\0{seconds}\0");
    std::fs::read_dir("/proc")
        .expect("proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|pid| pid.chars().all(|c| c.is_ascii_digit()) && alive(pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == want.as_bytes())
        })
        .count()
}
