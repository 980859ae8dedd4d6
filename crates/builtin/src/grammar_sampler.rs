//! The sampler that holds a reply to the tool-call grammar, made and fed without llama.cpp's
//! `common` library (a third of llama.cpp's build, of which only the JSON-schema converter was
//! used; that is ported in `schema_grammar`).
//!
//! llama.cpp's grammar sampler throws a C++ exception when it is fed a token its grammar cannot
//! take. Our picks are checked against the grammar first, so that happens only where llama.cpp
//! replays the tokens that completed a trigger word and the last of them runs past what a call
//! may start with (``"```json\n\n{"``). An exception cannot cross into Rust (the process would
//! abort), so the accept goes through a C++ function of ours that catches it
//! (`src/sampler_guard.cpp`, built by `build.rs`). The pinned llama-cpp-2 keeps the sampler's
//! pointer private; it is read from the wrapper, whose size proves the pointer is all it holds.

use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_sys_2::llama_sampler;

// The wrapper is one non-null pointer and nothing else: same size, so the pointer is at offset
// 0. A version of llama-cpp-2 that adds a field fails to build here instead of reading garbage.
const _: () = assert!(size_of::<LlamaSampler>() == size_of::<*mut llama_sampler>());

unsafe extern "C" {
    /// `llama_sampler_accept` inside a C++ `try`: 0 when accepted, 1 when llama.cpp threw.
    fn tandem_sampler_accept(sampler: *mut llama_sampler, token: i32) -> i32;
}

#[derive(Debug, thiserror::Error)]
#[error("the grammar could not take the token")]
pub struct Refused;

/// The grammar from the first token (`forced`), or lazily from the first trigger word on.
pub fn make(
    model: &LlamaModel,
    grammar: &str,
    root: &str,
    triggers: &[&str],
    forced: bool,
) -> Result<LlamaSampler, llama_cpp_2::GrammarError> {
    if forced {
        return LlamaSampler::grammar(model, grammar, root);
    }
    // As `common` did for trigger words: each word, escaped, is a pattern searched anywhere in
    // the reply so far.
    let patterns: Vec<String> = triggers.iter().map(|w| regex_escape(w)).collect();
    LlamaSampler::grammar_lazy_patterns(model, grammar, root, &patterns, &[])
}

/// Feeds `token` to the grammar; a token it cannot take is refused instead of aborting.
pub fn accept(sampler: &mut LlamaSampler, token: LlamaToken) -> Result<(), Refused> {
    // SAFETY: `LlamaSampler` is exactly one pointer to a live `llama_sampler` (asserted above),
    // owned by `sampler`, which is borrowed mutably for the call; the C++ side catches every
    // exception, so no unwinding crosses into Rust.
    let status = unsafe {
        let raw: *mut llama_sampler = std::mem::transmute_copy(sampler);
        tandem_sampler_accept(raw, token.0)
    };
    if status == 0 { Ok(()) } else { Err(Refused) }
}

/// The characters ECMAScript regexes (llama.cpp's `std::regex`) give a meaning, escaped — the
/// same set `common`'s `regex_escape` escaped.
fn regex_escape(word: &str) -> String {
    let mut out = String::with_capacity(word.len() * 2);
    for c in word.chars() {
        if ".^$|()*+?[]{}\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use llama_cpp_2::model::params::LlamaModelParams;

    /// The tiny model's vocabulary: what the grammar reads tokens with.
    fn vocabulary() -> LlamaModel {
        let backend = crate::engine::backend().expect("llama.cpp's backend");
        let params = LlamaModelParams::default().with_vocab_only(true);
        LlamaModel::load_from_file(backend, crate::tiny_model_path(), &params)
            .expect("the vocabulary loads")
    }

    fn tokens(model: &LlamaModel, text: &str) -> Vec<LlamaToken> {
        model.vocab().tokenize(text.as_bytes(), false, false)
    }

    #[test]
    fn a_token_the_grammar_cannot_take_is_refused_instead_of_aborting_the_process() {
        let model = vocabulary();
        let mut sampler = make(&model, "root ::= \"yes\"", "root", &[], true).expect("grammar");
        let no = tokens(&model, "no");
        assert!(accept(&mut sampler, no[0]).is_err());
        let mut sampler = make(&model, "root ::= \"yes\"", "root", &[], true).expect("grammar");
        for t in tokens(&model, "yes") {
            assert!(accept(&mut sampler, t).is_ok());
        }
    }

    #[test]
    fn a_trigger_whose_token_runs_past_what_a_call_starts_with_is_refused_not_an_abort() {
        let model = vocabulary();
        let grammar = "root ::= \"{\\\"name\\\"\" \":\" [a-z]+ \"}\"";
        let mut sampler = make(&model, grammar, "root", &["{\"name\""], false).expect("grammar");
        // Prose before the trigger is free; the trigger's own tokens are replayed into the
        // grammar, and text the grammar cannot take after it is refused.
        let mut refused = false;
        for t in tokens(&model, "Sure. {\"name\"  !!! oops") {
            refused |= accept(&mut sampler, t).is_err();
        }
        assert!(refused);
    }

    #[test]
    fn trigger_words_become_literal_patterns() {
        assert_eq!(regex_escape("```json"), "```json");
        assert_eq!(regex_escape("<tool_call>"), "<tool_call>");
        assert_eq!(regex_escape("{\"name\""), "\\{\"name\"");
        assert_eq!(regex_escape("a.b*c"), "a\\.b\\*c");
    }

    #[test]
    fn a_tool_schema_written_to_exhaust_the_grammar_neither_grows_it_nor_aborts() {
        // An MCP server's schema is not ours: huge repetitions and lengths must stay a short
        // grammar, and a grammar llama.cpp refuses must be an error, not a crash.
        let hostile = protocol::ToolDefinition {
            name: "hostile".into(),
            description: String::new(),
            input_schema: serde_json::json!({
                "type": "object",
                "properties": {
                    "a": {"type": "string", "pattern": "^(a{100000000}){100000000}$"},
                    "b": {"type": "array", "minItems": 100000000, "maxItems": 200000000},
                    "c": {"type": "string", "minLength": 100000000}
                },
                "required": ["a", "b", "c"]
            }),
        };
        let grammar = crate::grammar::grammar(&[hostile]).expect("it converts");
        assert!(grammar.len() < 10_000, "{} bytes", grammar.len());
        let model = vocabulary();
        // Either way the process is still here to assert.
        let made = make(&model, &grammar, crate::grammar::ROOT, &[], true);
        assert!(
            made.is_err(),
            "llama.cpp's parser refuses repetitions past its sane limits"
        );
    }
}
