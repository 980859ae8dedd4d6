//! llama.cpp's built-in rules: JSON's primitive values and the string formats it knows, each
//! with the rules it refers to, added to a grammar when first needed.

pub(super) const SPACE_RULE: &str = r#"| " " | "\n"{1,2} [ \t]{0,20}"#;

pub(super) struct Builtin {
    pub(super) name: &'static str,
    pub(super) content: &'static str,
    pub(super) deps: &'static [&'static str],
}

pub(super) const BOOLEAN: Builtin = Builtin {
    name: "boolean",
    content: r#"("true" | "false")"#,
    deps: &[],
};
const DECIMAL_PART: Builtin = Builtin {
    name: "decimal-part",
    content: "[0-9]{1,16}",
    deps: &[],
};
const INTEGRAL_PART: Builtin = Builtin {
    name: "integral-part",
    content: "[0] | [1-9] [0-9]{0,15}",
    deps: &[],
};
pub(super) const NUMBER: Builtin = Builtin {
    name: "number",
    content: r#"("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)?"#,
    deps: &["integral-part", "decimal-part"],
};
pub(super) const INTEGER: Builtin = Builtin {
    name: "integer",
    content: r#"("-"? integral-part)"#,
    deps: &["integral-part"],
};
pub(super) const VALUE: Builtin = Builtin {
    name: "value",
    content: "object | array | string | number | boolean | null",
    deps: &["object", "array", "string", "number", "boolean", "null"],
};
pub(super) const OBJECT: Builtin = Builtin {
    name: "object",
    content: r#""{" space ( string ":" space value ("," space string ":" space value)* )? space "}""#,
    deps: &["string", "value"],
};
pub(super) const ARRAY: Builtin = Builtin {
    name: "array",
    content: r#""[" space ( value ("," space value)* )? space "]""#,
    deps: &["value"],
};
pub(super) const UUID: Builtin = Builtin {
    name: "uuid",
    content: r#""\"" [0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12} "\"""#,
    deps: &[],
};
pub(super) const CHAR: Builtin = Builtin {
    name: "char",
    content: r#"[^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})"#,
    deps: &[],
};
pub(super) const STRING: Builtin = Builtin {
    name: "string",
    content: r#""\"" char* "\"""#,
    deps: &["char"],
};
pub(super) const NULL: Builtin = Builtin {
    name: "null",
    content: r#""null""#,
    deps: &[],
};

const PRIMITIVES: [&Builtin; 12] = [
    &BOOLEAN,
    &DECIMAL_PART,
    &INTEGRAL_PART,
    &NUMBER,
    &INTEGER,
    &VALUE,
    &OBJECT,
    &ARRAY,
    &UUID,
    &CHAR,
    &STRING,
    &NULL,
];

const DATE: Builtin = Builtin {
    name: "date",
    content: r#"[0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] )"#,
    deps: &[],
};
const TIME: Builtin = Builtin {
    name: "time",
    content: r#"([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{3} )? ( "Z" | ( "+" | "-" ) ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )"#,
    deps: &[],
};
const DATE_TIME: Builtin = Builtin {
    name: "date-time",
    content: r#"date "T" time"#,
    deps: &["date", "time"],
};
pub(super) const DATE_STRING: Builtin = Builtin {
    name: "date-string",
    content: r#""\"" date "\"""#,
    deps: &["date"],
};
pub(super) const TIME_STRING: Builtin = Builtin {
    name: "time-string",
    content: r#""\"" time "\"""#,
    deps: &["time"],
};
pub(super) const DATE_TIME_STRING: Builtin = Builtin {
    name: "date-time-string",
    content: r#""\"" date-time "\"""#,
    deps: &["date-time"],
};

const STRING_FORMATS: [&Builtin; 6] = [
    &DATE,
    &TIME,
    &DATE_TIME,
    &DATE_STRING,
    &TIME_STRING,
    &DATE_TIME_STRING,
];

/// The built-in rule called `name`, primitives first as in llama.cpp.
pub(super) fn find(name: &str) -> Option<&'static Builtin> {
    PRIMITIVES
        .iter()
        .chain(STRING_FORMATS.iter())
        .find(|b| b.name == name)
        .copied()
}

/// Names a schema's own rules must not take: a property called `string` would otherwise
/// replace the primitive every other string refers to.
pub(super) fn is_reserved_name(name: &str) -> bool {
    name == "root" || find(name).is_some()
}
