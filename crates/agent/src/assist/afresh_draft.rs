//! A draft asked afresh: the task's files as it began and its request, with no earlier answer
//! and no failure shown, in the shape of a conversation (the files in a message of their own,
//! the request alone after them) whose example reply first says what it will change. A small
//! model that gave its failing file back unchanged after a repair was sure of its answer;
//! asked the same way again (sampled, or told to change it) it gave the same answer (HumanEval
//! 32, 64, 120, 128, 160 in make bench-agent: 0 of 15 repair replies wrote anything). Asked
//! afresh, its likeliest answer is often another one. Measured with llama-server and the same
//! GGUF, greedy, on the seven tasks Tandem missed (those five and py-word-count, sh-greet):
//! the first wording below solved 3 (he-32, he-64, sh-greet); aider's own whole-file prompt in
//! this shape, which the second wording follows, 4 (he-64, he-128, py-word-count, sh-greet);
//! the same shapes sampled at 0.8, 1 of 16 tries. Which answer a 1.5B model finds likeliest
//! turns on the words more than on what they mean, so the two wordings are two tries.

use protocol::{ContentBlock, Message, Role};

/// Which of the afresh wordings a draft is asked in, in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Afresh {
    /// A plan as a short numbered list, then each changed file whole.
    PlanFirst,
    /// The needed changes explained, then a copy of each changed file.
    ExplainFirst,
}

impl Afresh {
    /// The wording tried after `tried` afresh drafts in the task; none when both were.
    pub(crate) fn nth(tried: u32) -> Option<Afresh> {
        match tried {
            0 => Some(Afresh::PlanFirst),
            1 => Some(Afresh::ExplainFirst),
            _ => None,
        }
    }

    /// The system message.
    pub(crate) fn system(self) -> &'static str {
        match self {
            Afresh::PlanFirst => PLAN_FIRST_SYSTEM,
            Afresh::ExplainFirst => EXPLAIN_FIRST_SYSTEM,
        }
    }

    /// The conversation: the example (the same in every afresh draft of this wording, so it
    /// is kept with the system message: see `EXAMPLE_MESSAGES`), the files, the request.
    pub(crate) fn messages(self, files: &str, task: &str) -> Vec<Message> {
        let (example, given, taken) = match self {
            Afresh::PlanFirst => (
                PLAN_FIRST_EXAMPLE,
                "Here are the files as they are now. Take them as the true content:\n\n",
                "Understood: I will change only these files.",
            ),
            Afresh::ExplainFirst => (
                EXPLAIN_FIRST_EXAMPLE,
                "These files are now in the conversation, so you can change them. Their content here is the true one; any other copy in the conversation may be out of date.\n\n",
                "Ok, the changes I make will be to these files.",
            ),
        };
        let said = |role: Role, text: String| Message {
            role,
            content: vec![ContentBlock::Text { text }],
        };
        vec![
            said(
                Role::User,
                "Change the greeting to be more casual".to_string(),
            ),
            said(Role::Assistant, example.to_string()),
            said(Role::User, format!("{given}{files}")),
            said(Role::Assistant, taken.to_string()),
            said(Role::User, task.to_string()),
        ]
    }
}

const PLAN_FIRST_SYSTEM: &str =
    "Act as an expert software developer who is handed files and asked to change them.
When you have understood the request, you must:
1. Decide whether the code needs to change.
2. Say in a short numbered list what you will change.
3. Give each file you change whole, as a file listing.

A file listing is:

path/to/file.py
```
the file's entire new content, every line
```

- The first line is the file's path as it was given, with nothing else on the line.
- Then the opening fence, every line of the file, and the closing fence.
Never leave lines out of a listing: no \"...\", no \"rest of the code\" comments.
";

const PLAN_FIRST_EXAMPLE: &str = "Ok, I will:\n\n1. Change the greeting from \"Hello\" to \"Hey\".\n\nshow_greeting.py\n```\nimport sys\n\ndef greeting(name):\n    print(f\"Hey {name}\")\n\nif __name__ == '__main__':\n    greeting(sys.argv[1])\n```\n";

const EXPLAIN_FIRST_SYSTEM: &str = "Act as an expert software developer.
Make the changes asked for to the code you are given.
If the request is unclear, ask.

When you have understood the request you MUST:
1. Work out whether the code needs changes.
2. Explain the changes it needs.
3. If it needs changes, give a copy of each file that changes.

To change a file you MUST give its entire updated content, in this *file listing* format:

path/to/filename.js
```
// the file's entire content ...
// ... every line of it
```

Every *file listing* MUST have this form:
- First line: the file's name with the path it was given; **only** the name with its path, no markup or comment.
- Second line: the opening ```
- ... the file's entire content ...
- Last line: the closing ```

*NEVER* skip, shorten or elide lines of a *file listing* with \"...\" or comments like \"... rest of code...\"!
";

const EXPLAIN_FIRST_EXAMPLE: &str = "Ok, I will:\n\n1. Change the greeting text from \"Hello\" to \"Hey\".\n\nshow_greeting.py\n```\ndef greeting(name):\n    print(f\"Hey {name}\")\n```\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wordings_are_tried_in_order_and_then_none() {
        assert_eq!(Afresh::nth(0), Some(Afresh::PlanFirst));
        assert_eq!(Afresh::nth(1), Some(Afresh::ExplainFirst));
        assert_eq!(Afresh::nth(2), None);
        assert_ne!(Afresh::PlanFirst.system(), Afresh::ExplainFirst.system());
    }

    #[test]
    fn the_files_come_alone_and_the_request_last() {
        for w in [Afresh::PlanFirst, Afresh::ExplainFirst] {
            let m = w.messages("calc.py\n```\nx = 1\n```\n\n", "Fix calc.py.");
            let roles: Vec<Role> = m.iter().map(|m| m.role).collect();
            assert_eq!(
                roles,
                [
                    Role::User,
                    Role::Assistant,
                    Role::User,
                    Role::Assistant,
                    Role::User
                ]
            );
            assert!(
                m[1].text().starts_with("Ok, I will:\n\n1. "),
                "the example plans first"
            );
            assert!(m[2].text().ends_with("calc.py\n```\nx = 1\n```\n\n"));
            assert_eq!(m[4].text(), "Fix calc.py.");
        }
    }
}
