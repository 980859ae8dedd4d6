//! The names the model calls servers' tools by: `server__tool`, in the characters every
//! provider accepts (letters, digits, `_`, `-`) and at most 64 of them.

/// Longest tool name the providers take.
const MAX_NAME: usize = 64;

fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

pub fn exposed_name(server: &str, tool: &str) -> String {
    let mut name = format!("{}__{}", clean(server), clean(tool));
    if name.len() > MAX_NAME {
        name.truncate(MAX_NAME);
    }
    name
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_cleaned_and_cut() {
        assert_eq!(super::exposed_name("files", "read"), "files__read");
        assert_eq!(
            super::exposed_name("my.srv", "get thing/x"),
            "my_srv__get_thing_x"
        );
        assert_eq!(super::exposed_name("s", &"t".repeat(100)).len(), 64);
    }
}
