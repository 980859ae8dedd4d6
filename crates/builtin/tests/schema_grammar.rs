//! Our JSON-schema converter writes what llama.cpp's writes, byte for byte. Each fixture in
//! `fixtures/schema_grammar` is a schema (`NAME.json`) and what llama.cpp's
//! `json_schema_to_grammar` (llama-cpp-2 0.1.160, no llguidance) made of it: the grammar
//! (`NAME.gbnf`) or its error message (`NAME.error`). The `catalog` and `tool-*` schemas are
//! the tool catalog's as it was when the fixtures were written, frozen: they are inputs, not
//! to be regenerated from the live tools.

use std::path::{Path, PathBuf};

use builtin::{SchemaGrammarError, json_schema_to_grammar};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema_grammar")
}

fn schema_fixtures() -> Vec<PathBuf> {
    let mut schemas: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures directory")
        .map(|entry| entry.expect("fixture entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    schemas.sort();
    schemas
}

/// Where `ours` first differs from `expected`, line by line, for the failure message.
fn first_difference(expected: &[u8], ours: &[u8]) -> String {
    let expected = String::from_utf8_lossy(expected);
    let ours = String::from_utf8_lossy(ours);
    let mut expected_lines = expected.split('\n');
    let mut our_lines = ours.split('\n');
    for line in 1.. {
        match (expected_lines.next(), our_lines.next()) {
            (None, None) => break,
            (e, o) if e == o => continue,
            (e, o) => {
                return format!(
                    "first difference at line {line}:\n  llama.cpp: {}\n  ours:      {}",
                    e.unwrap_or("<end>"),
                    o.unwrap_or("<end>")
                );
            }
        }
    }
    "the texts differ only in bytes that are not UTF-8".to_string()
}

/// What is wrong with our output for the schema at `path`, if anything.
fn check(path: &Path) -> Option<String> {
    let name = path.file_stem()?.to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).expect("schema fixture");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("schema fixture is JSON");
    let ours = json_schema_to_grammar(&schema);
    let error_file = path.with_extension("error");
    let grammar_file = path.with_extension("gbnf");
    if error_file.exists() {
        let expected = std::fs::read_to_string(&error_file).expect("error fixture");
        return match ours {
            Err(e @ SchemaGrammarError::Conversion(_)) if e.to_string() == expected => None,
            Err(e) => Some(format!(
                "{name}: llama.cpp fails with\n{expected}\nours fails with\n{e}"
            )),
            Ok(g) => Some(format!(
                "{name}: llama.cpp fails with\n{expected}\nours writes\n{g}"
            )),
        };
    }
    let Ok(expected) = std::fs::read(&grammar_file) else {
        return Some(format!("{name}: no {name}.gbnf or {name}.error beside it"));
    };
    // llama.cpp's bytes may not be UTF-8 (a pattern cut a character): llama-cpp-2 refuses
    // those, and so must we, with the same bytes.
    let ours: Vec<u8> = match (ours, std::str::from_utf8(&expected).is_ok()) {
        (Ok(g), true) => g.into_bytes(),
        (Err(SchemaGrammarError::NotUtf8(e)), false) => e.into_bytes(),
        (Ok(_), false) => {
            return Some(format!("{name}: llama.cpp's grammar is not UTF-8, ours is"));
        }
        (Err(e), _) => return Some(format!("{name}: llama.cpp converts it, ours fails: {e}")),
    };
    if ours == expected {
        return None;
    }
    Some(format!(
        "{name}: the grammar differs from llama.cpp's; {}\n--- llama.cpp\n{}\n--- ours\n{}",
        first_difference(&expected, &ours),
        String::from_utf8_lossy(&expected),
        String::from_utf8_lossy(&ours)
    ))
}

#[test]
fn every_fixture_converts_as_llama_cpp_converts_it() {
    let schemas = schema_fixtures();
    // The hand-written schemas, the catalog, and each tool's (alone and its arguments).
    assert!(schemas.len() >= 90, "only {} fixtures found", schemas.len());
    let failures: Vec<String> = schemas.iter().filter_map(|p| check(p)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} fixtures differ:\n\n{}",
        failures.len(),
        schemas.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_catalog_fixture_is_there_and_converts() {
    let catalog = fixtures_dir().join("catalog.json");
    assert!(catalog.exists(), "catalog.json is missing");
    assert_eq!(check(&catalog), None);
}

/// Where llama.cpp recurses until its stack overflows (an `allOf` member that refers back to
/// the object holding it), ours stops with an error: the one case with no fixture.
#[test]
fn an_all_of_that_includes_itself_is_an_error_not_a_crash() {
    let schema = serde_json::json!({
        "$ref": "#/$defs/A",
        "$defs": {"A": {
            "type": "object",
            "properties": {
                "x": {"allOf": [{"$ref": "#/$defs/A"}]},
                "y": {"allOf": [{"$ref": "#/$defs/A"}]}
            }
        }}
    });
    let e = json_schema_to_grammar(&schema).expect_err("no grammar");
    assert!(e.to_string().contains("nests deeper than"), "{e}");
}

#[test]
fn an_all_of_of_a_ref_that_loops_adds_nothing() {
    let schema = serde_json::json!({
        "allOf": [{"$ref": "#/$defs/A"}, {"enum": ["x"]}],
        "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}
    });
    let g = json_schema_to_grammar(&schema).expect("grammar");
    assert!(g.contains("root ::= \"{\" space \"}\""), "{g}");
}
