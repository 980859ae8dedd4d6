//! Skills: folders with a `skill.json` that add tools for the tasks they are made for. A skill
//! lives in the project (`.tandem/skills/NAME/`) or in the user's Tandem config folder
//! (`skills/NAME/`), names the words or `/regexes/` that activate it, and describes each tool
//! as a program with an argument list. A broken skill is reported and skipped; it never stops
//! the others from loading.
//!
//! What a tool's arguments become is decided here, once: a `{{param}}` placeholder is replaced
//! by the model's value *inside one argument*, which stays one argument — never shell text —
//! so `x; touch ../pwned` reaches the program as those exact bytes.

use crate::error::{ToolError, ToolResult};
use protocol::{ExtensionOrigin, SkillProblem, SkillToolView, SkillView};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// `skill_activate`'s arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillActivateArgs {
    /// The skill's name, as skill_list shows it.
    pub name: String,
}

/// A skill.json larger than this is refused (a manifest is a few kilobytes).
const MAX_MANIFEST_BYTES: u64 = 256 * 1024;
/// The most of a SKILL.md that joins the system prompt.
const MAX_INSTRUCTIONS_BYTES: usize = 32 * 1024;
/// Where a project keeps its skills, and the user theirs (under the config folder).
pub const PROJECT_SKILLS_DIR: &str = ".tandem/skills";
pub const USER_SKILLS_DIR: &str = "skills";
/// The placeholder for the skill's own folder (where its scripts are).
pub const SKILL_DIR_PARAM: &str = "skill_dir";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    name: String,
    description: String,
    #[serde(default)]
    triggers: Vec<String>,
    #[serde(default)]
    tools: Vec<ToolManifest>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ToolManifest {
    name: String,
    description: String,
    input_schema: Value,
    /// Absent in the seed's own example: said as the line to add, not as a parse error.
    #[serde(default)]
    run: Vec<String>,
}

/// What activates a skill: a word or phrase (whole words, any case), or a regular expression
/// written between slashes.
#[derive(Debug, Clone)]
pub struct Trigger {
    /// As written in skill.json.
    pub text: String,
    regex: regex::Regex,
}

impl Trigger {
    fn parse(text: &str) -> Result<Trigger, String> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err("a trigger is empty".into());
        }
        let pattern = match trimmed
            .strip_prefix('/')
            .and_then(|t| t.strip_suffix('/'))
            .filter(|p| !p.is_empty())
        {
            Some(re) => format!("(?i){re}"),
            // A word matches whole words only: "test" does not activate on "latest".
            None => format!(r"(?i)\b{}\b", regex::escape(trimmed)),
        };
        let regex = regex::RegexBuilder::new(&pattern)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("the trigger {text:?} is not a valid regular expression: {e}"))?;
        Ok(Trigger {
            text: text.to_string(),
            regex,
        })
    }

    pub fn matches(&self, task: &str) -> bool {
        self.regex.is_match(task)
    }
}

/// One tool of a skill.
#[derive(Debug, Clone)]
pub struct SkillTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// The program, then its arguments, placeholders and all.
    pub run: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub origin: ExtensionOrigin,
    /// Its folder and its skill.json.
    pub dir: PathBuf,
    pub file: PathBuf,
    pub triggers: Vec<Trigger>,
    pub tools: Vec<SkillTool>,
    /// SKILL.md's text (cut to a size), for the system prompt while the skill is active.
    pub instructions: Option<String>,
}

/// The skills found, and the ones that could not be loaded.
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    pub skills: Vec<Skill>,
    pub problems: Vec<SkillProblem>,
}

fn valid_name(name: &str, max: usize) -> bool {
    !name.is_empty()
        && name.len() <= max
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The `{{name}}` placeholders in one argument, in order.
fn placeholders(arg: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = arg;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        let name = &after[..end];
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push(name);
        }
        rest = &after[end + 2..];
    }
    out
}

impl ToolManifest {
    fn check(self) -> Result<SkillTool, String> {
        if !valid_name(&self.name, 48) {
            return Err(format!(
                "the tool name {:?} may use only letters, digits, _ and - (at most 48)",
                self.name
            ));
        }
        let Some(props) = self
            .input_schema
            .as_object()
            .filter(|s| s.get("type").and_then(Value::as_str) == Some("object"))
            .map(|s| s.get("properties").and_then(Value::as_object))
        else {
            return Err(format!(
                "the tool {}: inputSchema must be a JSON schema of \"type\": \"object\"",
                self.name
            ));
        };
        let Some(program) = self.run.first() else {
            let mut example = vec![format!("\"{{{{{SKILL_DIR_PARAM}}}}}/{}.sh\"", self.name)];
            example.extend(
                props
                    .into_iter()
                    .flat_map(|m| m.keys())
                    .map(|k| format!("\"{{{{{k}}}}}\"")),
            );
            return Err(format!(
                "the tool {} has no \"run\": the program Tandem runs when the model calls it, and its arguments. Add it beside inputSchema, for example \"run\": [{}] (each {{{{property}}}} of inputSchema becomes one argument; {{{{{SKILL_DIR_PARAM}}}}} is the skill's folder)",
                self.name,
                example.join(", ")
            ));
        };
        if !placeholders(program).is_empty() {
            return Err(format!(
                "the tool {}: the program itself ({program}) cannot be a placeholder; only its arguments can",
                self.name
            ));
        }
        for arg in &self.run {
            for p in placeholders(arg) {
                if p != SKILL_DIR_PARAM && !props.is_some_and(|m| m.contains_key(p)) {
                    return Err(format!(
                        "the tool {}: {{{{{p}}}}} in run is not one of its inputSchema's properties",
                        self.name
                    ));
                }
            }
        }
        Ok(SkillTool {
            name: self.name,
            description: self.description,
            input_schema: self.input_schema,
            run: self.run,
        })
    }
}

impl Skill {
    /// Reads one skill folder. `trusted` is false for a project's skills: their files must be
    /// plain files inside the project and not secrets (a cloned repository's SKILL.md could
    /// link to `~/.aws/credentials`, and its text goes to the model).
    fn load(
        dir: &Path,
        origin: ExtensionOrigin,
        inside: Option<&crate::ProjectRoot>,
    ) -> Result<Skill, (PathBuf, String)> {
        let file = dir.join("skill.json");
        let fail = |e: String| (file.clone(), e);
        let text = read_capped(&file, inside, MAX_MANIFEST_BYTES as usize)
            .map_err(&fail)?
            .ok_or_else(|| fail("there is no skill.json in this skill folder".into()))?;
        if text.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(fail("skill.json is too large (over 256 KB)".into()));
        }
        let m: Manifest = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
        if !valid_name(&m.name, 48) {
            return Err(fail(format!(
                "the name {:?} may use only letters, digits, _ and - (at most 48)",
                m.name
            )));
        }
        let triggers = m
            .triggers
            .iter()
            .map(|t| Trigger::parse(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(&fail)?;
        let mut tools: Vec<SkillTool> = Vec::new();
        for t in m.tools {
            let tool = t.check().map_err(&fail)?;
            if tools.iter().any(|o| o.name == tool.name) {
                return Err(fail(format!("two tools are named {}", tool.name)));
            }
            tools.push(tool);
        }
        let instructions = read_capped(&dir.join("SKILL.md"), inside, MAX_INSTRUCTIONS_BYTES + 1)
            .map_err(|e| (dir.join("SKILL.md"), e))?
            .map(|mut t| {
                if t.len() > MAX_INSTRUCTIONS_BYTES {
                    let mut cut = MAX_INSTRUCTIONS_BYTES;
                    while !t.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    t.truncate(cut);
                    t.push_str("\n[… the rest of SKILL.md was cut]");
                }
                t
            });
        Ok(Skill {
            name: m.name,
            description: m.description,
            origin,
            dir: dir.to_path_buf(),
            file,
            triggers,
            tools,
            instructions,
        })
    }

    /// Reads a folder a person picked to add as one of their own skills: what loading it
    /// later would find, or what is wrong with it in words.
    pub fn read_folder(dir: &Path) -> Result<Skill, String> {
        Skill::load(dir, ExtensionOrigin::User, None)
            .map_err(|(file, error)| format!("{}: {error}", file.display()))
    }

    /// The first trigger the task's text matches.
    pub fn trigger_for(&self, task: &str) -> Option<&Trigger> {
        self.triggers.iter().find(|t| t.matches(task))
    }

    pub fn tool(&self, name: &str) -> Option<&SkillTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn view(&self, enabled: bool) -> SkillView {
        SkillView {
            name: self.name.clone(),
            description: self.description.clone(),
            origin: self.origin,
            file: self.file.display().to_string(),
            triggers: self.triggers.iter().map(|t| t.text.clone()).collect(),
            tools: self
                .tools
                .iter()
                .map(|t| SkillToolView {
                    name: t.name.clone(),
                    description: t.description.clone(),
                    run: t.run.clone(),
                })
                .collect(),
            has_instructions: self.instructions.is_some(),
            enabled,
        }
    }
}

/// A file's text, at most `cap` bytes (plus one, to tell it was longer); `None` when it does
/// not exist. Inside a project, the file must resolve inside it and not be a secret.
fn read_capped(
    path: &Path,
    inside: Option<&crate::ProjectRoot>,
    cap: usize,
) -> Result<Option<String>, String> {
    let real = match inside {
        Some(root) => {
            let rel = root.relative(path).unwrap_or_default();
            match root.resolve(&rel) {
                Ok(r) => r.real,
                Err(_) => return Err(format!("{} leads outside the project", path.display())),
            }
        }
        None => path.to_path_buf(),
    };
    if !real.exists() {
        return Ok(None);
    }
    if inside.is_some_and(|r| r.is_secret(&real)) {
        return Err(format!("{} leads to a secret file", path.display()));
    }
    if !real.is_file() {
        return Err(format!("{} is not a file", path.display()));
    }
    let f = std::fs::File::open(&real).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(f, cap as u64 + 1), &mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

impl SkillSet {
    /// The project's skills and the user's (`user_dir` is the config folder's `skills/`).
    /// When both have a skill of one name, the user's is kept: a repository cannot replace a
    /// skill the user trusts with its own.
    pub fn discover(project: &crate::ProjectRoot, user_dir: Option<&Path>) -> SkillSet {
        let mut set = SkillSet::default();
        if let Some(dir) = user_dir {
            set.load_dir(dir, ExtensionOrigin::User, None);
        }
        set.load_dir(
            &project.path().join(PROJECT_SKILLS_DIR),
            ExtensionOrigin::Project,
            Some(project),
        );
        set
    }

    fn load_dir(
        &mut self,
        dir: &Path,
        origin: ExtensionOrigin,
        inside: Option<&crate::ProjectRoot>,
    ) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut folders: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        folders.sort();
        for folder in folders {
            match Skill::load(&folder, origin, inside) {
                Ok(skill) => {
                    if let Some(kept) = self.skills.iter().find(|s| s.name == skill.name) {
                        self.problems.push(SkillProblem {
                            origin,
                            file: skill.file.display().to_string(),
                            error: format!(
                                "a skill named {} is already loaded from {}; this one is skipped",
                                skill.name,
                                kept.file.display()
                            ),
                        });
                    } else {
                        self.skills.push(skill);
                    }
                }
                Err((file, error)) => self.problems.push(SkillProblem {
                    origin,
                    file: file.display().to_string(),
                    error,
                }),
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// The same set without the skills named in `disabled`.
    pub fn without(mut self, disabled: &[String]) -> SkillSet {
        self.skills.retain(|s| !disabled.contains(&s.name));
        self
    }
}

/// The program and arguments for one call of a skill tool: each placeholder replaced by the
/// model's value within its argument, which stays one argument. An argument whose placeholder
/// has no value (an optional parameter left out) is left out whole; a required one missing,
/// an argument the schema does not name, or a value that is a list or an object is refused.
pub fn skill_argv(tool: &SkillTool, args: &Value, skill_dir: &str) -> ToolResult<Vec<String>> {
    let empty = Map::new();
    let given = match args {
        Value::Object(m) => m,
        Value::Null => &empty,
        _ => {
            return Err(ToolError::InvalidArgument(format!(
                "the arguments for {} must be a JSON object",
                tool.name
            )));
        }
    };
    let props = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object);
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for key in given.keys() {
        if !props.is_some_and(|p| p.contains_key(key)) {
            return Err(ToolError::InvalidArgument(format!(
                "{} has no argument named `{key}`; check its schema",
                tool.name
            )));
        }
    }
    for r in &required {
        if given.get(*r).is_none_or(Value::is_null) {
            return Err(ToolError::InvalidArgument(format!(
                "{} needs the argument `{r}`",
                tool.name
            )));
        }
    }
    let value_of = |name: &str| -> ToolResult<Option<String>> {
        if name == SKILL_DIR_PARAM {
            return Ok(Some(skill_dir.to_string()));
        }
        let text = match given.get(name) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(s)) => s.clone(),
            Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
            Some(_) => {
                return Err(ToolError::InvalidArgument(format!(
                    "`{name}` of {} must be a string, a number or true/false",
                    tool.name
                )));
            }
        };
        if text.contains('\0') {
            return Err(ToolError::InvalidArgument(format!(
                "`{name}` of {} contains a NUL character, which no argument can hold",
                tool.name
            )));
        }
        Ok(Some(text))
    };
    let mut argv = Vec::with_capacity(tool.run.len());
    'args: for template in &tool.run {
        let mut out = String::with_capacity(template.len());
        let mut rest = template.as_str();
        while let Some(start) = rest.find("{{") {
            let after = &rest[start + 2..];
            let end = after.find("}}");
            let name = end.map(|e| &after[..e]).filter(|n| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            match (name, end) {
                (Some(name), Some(e)) => {
                    out.push_str(&rest[..start]);
                    match value_of(name)? {
                        Some(v) => out.push_str(&v),
                        None => continue 'args,
                    }
                    rest = &after[e + 2..];
                }
                _ => {
                    out.push_str(&rest[..start + 2]);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        argv.push(out);
    }
    Ok(argv)
}

/// An argument list written as one shell command line, each argument quoted so the shell
/// would read back exactly these arguments: what the policy judges and the user is shown.
/// The program itself is run without a shell.
pub fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(run: &[&str]) -> SkillTool {
        SkillTool {
            name: "t".into(),
            description: "d".into(),
            input_schema: json!({"type": "object", "properties": {"file": {"type": "string"}, "n": {"type": "integer"}}, "required": ["file"]}),
            run: run.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_placeholder_becomes_one_whole_argument() {
        let t = tool(&[
            "wc",
            "-w",
            "{{file}}",
            "--lines={{n}}",
            "{{skill_dir}}/x.py",
        ]);
        let argv =
            skill_argv(&t, &json!({"file": "x; touch ../pwned", "n": 3}), "/s").expect("argv");
        assert_eq!(
            argv,
            vec!["wc", "-w", "x; touch ../pwned", "--lines=3", "/s/x.py"]
        );
        // What the policy judges reads back as the same arguments.
        assert_eq!(
            shell_words(&argv),
            "wc -w 'x; touch ../pwned' --lines=3 /s/x.py"
        );
        assert_eq!(
            shell_words(&["echo".into(), "it's $(id)".into(), String::new()]),
            r"echo 'it'\''s $(id)' ''"
        );
    }

    #[test]
    fn optional_arguments_drop_out_and_bad_ones_are_refused() {
        let t = tool(&["wc", "-w", "{{file}}", "--lines={{n}}"]);
        assert_eq!(
            skill_argv(&t, &json!({"file": "a"}), "/s").expect("argv"),
            vec!["wc", "-w", "a"]
        );
        for bad in [
            json!({}),
            json!({"file": "a", "other": 1}),
            json!({"file": ["a", "b"]}),
            json!({"file": "a\u{0}b"}),
            json!("a"),
        ] {
            assert!(skill_argv(&t, &bad, "/s").is_err(), "{bad}");
        }
        // Braces that are no placeholder stay as they are.
        let t = tool(&["printf", "{{}} {{ file }} %s", "{{file}}"]);
        assert_eq!(
            skill_argv(&t, &json!({"file": "a"}), "/s").expect("argv"),
            vec!["printf", "{{}} {{ file }} %s", "a"]
        );
    }

    #[test]
    fn triggers_are_whole_words_or_regexes_in_any_case() {
        let word = Trigger::parse("word count").expect("word");
        assert!(word.matches("Give me the Word Count of README.md"));
        assert!(!word.matches("the wordcounts"));
        let re = Trigger::parse(r"/\bcount (the )?words\b/").expect("regex");
        assert!(re.matches("please COUNT the words"));
        assert!(!re.matches("accountwords"));
        assert!(Trigger::parse("/(unclosed/").is_err());
        assert!(Trigger::parse("  ").is_err());
    }
}
