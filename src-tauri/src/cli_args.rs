//! The command line: `tandem [DIR]` or `tandem --project DIR`.

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliAction {
    Launch { project: Option<PathBuf> },
    Help,
    Version,
    Invalid(String),
}

pub const USAGE: &str = "\
Usage: tandem [DIR]
       tandem --project DIR

Opens Tandem, with the project folder DIR when one is given.

Options:
  -p, --project DIR   open this project folder
  -h, --help          show this help
  -V, --version       show the version";

/// Parses the arguments after the program name. Unknown flags are refused rather than taken
/// for a folder, so a typo never opens the wrong thing.
pub fn parse(args: impl IntoIterator<Item = String>) -> CliAction {
    let mut project: Option<PathBuf> = None;
    let mut args = args.into_iter();
    let set = |value: String, project: &mut Option<PathBuf>| -> Option<CliAction> {
        if project.is_some() {
            return Some(CliAction::Invalid(
                "only one project folder can be given".into(),
            ));
        }
        *project = Some(PathBuf::from(value));
        None
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return CliAction::Help,
            "-V" | "--version" => return CliAction::Version,
            "-p" | "--project" => match args.next() {
                Some(dir) => {
                    if let Some(err) = set(dir, &mut project) {
                        return err;
                    }
                }
                None => return CliAction::Invalid(format!("{arg} needs a folder")),
            },
            "--" => {
                for rest in args.by_ref() {
                    if let Some(err) = set(rest, &mut project) {
                        return err;
                    }
                }
            }
            _ => {
                if let Some(dir) = arg.strip_prefix("--project=") {
                    if let Some(err) = set(dir.to_string(), &mut project) {
                        return err;
                    }
                } else if arg.starts_with('-') && arg.len() > 1 {
                    return CliAction::Invalid(format!("unknown option {arg}"));
                } else if let Some(err) = set(arg, &mut project) {
                    return err;
                }
            }
        }
    }
    CliAction::Launch { project }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> CliAction {
        parse(args.iter().map(|s| s.to_string()))
    }

    fn launch(dir: &str) -> CliAction {
        CliAction::Launch {
            project: Some(PathBuf::from(dir)),
        }
    }

    #[test]
    fn positional_and_flag_forms_agree() {
        assert_eq!(p(&["/a/b"]), launch("/a/b"));
        assert_eq!(p(&["--project", "/a/b"]), launch("/a/b"));
        assert_eq!(p(&["-p", "/a/b"]), launch("/a/b"));
        assert_eq!(p(&["--project=/a/b"]), launch("/a/b"));
        assert_eq!(p(&["--", "-weird-name"]), launch("-weird-name"));
        assert_eq!(p(&[]), CliAction::Launch { project: None });
    }

    #[test]
    fn help_version_and_mistakes() {
        assert_eq!(p(&["--help"]), CliAction::Help);
        assert_eq!(p(&["-V"]), CliAction::Version);
        assert!(matches!(p(&["--project"]), CliAction::Invalid(_)));
        assert!(matches!(p(&["--bogus"]), CliAction::Invalid(_)));
        assert!(matches!(p(&["/a", "/b"]), CliAction::Invalid(_)));
    }
}
