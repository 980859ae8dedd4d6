//! JSON schema to GBNF: a port of llama.cpp's `json_schema_to_grammar` (common/json-schema.cpp
//! reads the schema, common/json-schema-to-grammar.cpp writes the grammar) as llama-cpp-2 0.1.160
//! calls it, without llguidance. The output is the same text byte for byte, rule names and
//! order included, so a grammar that worked with llama.cpp's converter works with this one; the
//! fixtures in `tests/fixtures/schema_grammar` (written by llama.cpp itself) hold us to that.
//!
//! Being a port, the code keeps llama.cpp's structure and its quirks (rule names, the odd space,
//! which keyword wins); where it looks wrong, check the C++ before "fixing" it. It departs from
//! llama.cpp only where llama.cpp's process dies of a stack overflow (an `allOf` that reaches
//! itself through `$ref`s): an error here, or the loop contributing nothing. Patterns with no
//! GBNF equivalent accept any string, as in llama.cpp, with a `tracing` warning where llama.cpp
//! prints one.

mod converter;
mod document;
mod grisu;
mod int_range;
mod literal;
mod pattern;
mod primitives;
mod rules;

use std::string::FromUtf8Error;

use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum SchemaGrammarError {
    /// What llama.cpp throws: the schema falls outside what converts (one error a line).
    #[error("JSON schema conversion failed:\n{0}")]
    Conversion(String),
    /// llama.cpp cuts a pattern into bytes, and a quantifier after a multi-byte character
    /// applies to its last byte alone; llama-cpp-2 then refuses the grammar, and so do we. The
    /// error keeps the grammar's bytes.
    #[error("the grammar is not UTF-8 (a pattern repeats part of a multi-byte character): {0}")]
    NotUtf8(#[from] FromUtf8Error),
}

/// The GBNF grammar, start rule `root`, of the JSON values that fit `schema`. `$ref`s must
/// point into `schema` itself (`#/…`); any other is an error, as in llama.cpp.
pub fn json_schema_to_grammar(schema: &Value) -> Result<String, SchemaGrammarError> {
    let document =
        document::build(schema).map_err(|e| SchemaGrammarError::Conversion(e.to_string()))?;
    let mut converter = converter::Converter::new(&document);
    converter.visit(&document.root, "");
    let grammar = converter.finish().map_err(SchemaGrammarError::Conversion)?;
    Ok(String::from_utf8(grammar)?)
}
