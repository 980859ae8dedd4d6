//! Builds the C++ guard that catches llama.cpp's exceptions (src/sampler_guard.cpp).

fn main() {
    println!("cargo:rerun-if-changed=src/sampler_guard.cpp");
    cc::Build::new()
        .cpp(true)
        .file("src/sampler_guard.cpp")
        .flag_if_supported("-std=c++17")
        .compile("tandem_sampler_guard");
}
