//! Every tool the agent offers converts to the call grammar with its own schema, so the
//! built-in model's calls to any of them are forced well formed (no model needed).

use protocol::ToolDefinition;

fn catalog() -> Vec<ToolDefinition> {
    tools::TOOLS
        .iter()
        .map(|t| ToolDefinition {
            name: t.name.to_string(),
            description: t.description.to_string(),
            input_schema: t.schema(),
        })
        .collect()
}

#[test]
fn each_tool_schema_converts() {
    let failed: Vec<String> = catalog()
        .into_iter()
        .filter(|t| builtin::grammar(std::slice::from_ref(t)).is_err())
        .map(|t| format!("{}: {}", t.name, t.input_schema))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The single forms a small model is offered (`ToolSpec::small_model_form`) convert too, and the
/// grammar then has no way to write the other form.
#[test]
fn the_small_model_forms_convert() {
    let (description, input_schema) = tools::find_tool("edit_file")
        .and_then(tools::ToolSpec::small_model_form)
        .expect("edit_file");
    let edit = ToolDefinition {
        name: "edit_file".into(),
        description: description.into(),
        input_schema,
    };
    let g = builtin::grammar(std::slice::from_ref(&edit)).expect("grammar");
    assert!(g.contains("old_string") && !g.contains("edits"), "{g}");
}

#[test]
fn the_whole_catalog_converts_at_once() {
    let g = builtin::grammar(&catalog()).expect("grammar");
    assert!(g.contains("read_file") && g.contains("run_command"));
}
