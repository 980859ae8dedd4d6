// llama.cpp's grammar sampler throws when it is fed a token its grammar cannot take. A C++
// exception must not unwind into Rust (the process would abort), so Rust accepts tokens
// through this function, which turns the exception into a status (see grammar_sampler.rs).
#include <cstdint>

struct llama_sampler;

extern "C" void llama_sampler_accept(struct llama_sampler * smpl, int32_t token);

extern "C" int tandem_sampler_accept(struct llama_sampler * smpl, int32_t token) noexcept {
    try {
        llama_sampler_accept(smpl, token);
        return 0;
    } catch (...) {
        return 1;
    }
}
