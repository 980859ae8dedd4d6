//! The shape of source code as the small-model help reads it: indentation, the lines that
//! start a function or a class, and where an indented block ends. Text only, no parser: it
//! serves the languages small tasks are written in (Python, JavaScript, Rust, shell) and is
//! only ever used to show or widen a span, never to change code by itself.

/// Leading whitespace, in characters.
pub fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Whether a line starts a function: `def`, `fn`, `function`, a shell `name() {`.
pub fn starts_function(line: &str) -> bool {
    let t = without_modifiers(line);
    ["def ", "fn ", "function "]
        .iter()
        .any(|k| t.starts_with(k))
        || (t.contains("() {") && !t.starts_with("if ") && !t.starts_with("while "))
}

/// Whether a line starts a function, a class or an `impl` block.
pub fn starts_definition(line: &str) -> bool {
    let t = without_modifiers(line);
    starts_function(line) || t.starts_with("class ") || t.starts_with("impl ")
}

fn without_modifiers(line: &str) -> &str {
    let mut t = line.trim_start();
    for m in ["export ", "pub ", "async "] {
        t = t.strip_prefix(m).unwrap_or(t);
    }
    t
}

/// The last line (0-based) of the block that line `start` opens: the lines indented deeper,
/// blank lines within it, and a closing bracket at the opening line's own indentation.
pub fn block_end(lines: &[&str], start: usize) -> usize {
    let own = lines.get(start).map_or(0, |l| indent(l));
    let mut end = start;
    for (i, l) in lines.iter().enumerate().skip(start + 1) {
        if l.trim().is_empty() {
            continue;
        }
        if indent(l) <= own {
            if l.trim_start().starts_with(['}', ')', ']']) {
                end = i;
            }
            break;
        }
        end = i;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_and_blocks() {
        assert!(starts_function("    async def fetch():"));
        assert!(starts_function("export function mul() {"));
        assert!(starts_function("greet() {"));
        assert!(!starts_function("if ok() {"));
        assert!(!starts_function("class Calc:") && starts_definition("class Calc:"));
        let py: Vec<&str> = "def f():\n    a = 1\n\n    return a\nx = f()\n"
            .lines()
            .collect();
        assert_eq!(block_end(&py, 0), 3);
        let js: Vec<&str> = "function f() {\n  return 1;\n}\nf();\n".lines().collect();
        assert_eq!(block_end(&js, 0), 2);
    }
}
