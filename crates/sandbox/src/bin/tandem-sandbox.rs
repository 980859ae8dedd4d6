//! `tandem-sandbox`: starts one command inside the sandbox (`run`), or tells what the kernel
//! offers (`probe`). Kept as its own small program so that starting a command stays cheap and
//! so that it is single-threaded when it makes its namespaces.

fn main() {
    #[cfg(target_os = "linux")]
    std::process::exit(sandbox::helper::main());
    #[cfg(not(target_os = "linux"))]
    {
        eprintln!("tandem-sandbox: only Linux is supported");
        std::process::exit(sandbox::SETUP_FAILED_EXIT);
    }
}
