// The kinds of rule a person can add in Settings → Rules, in the order the form offers them:
// what each one does, and an example of what to write.
import type { RuleList } from "./bindings";

export type RuleKind = { list: RuleList; label: string; example: string };

export const RULE_KINDS: RuleKind[] = [
  { list: "commands_allow", label: "Run a command without asking", example: "make check" },
  { list: "commands_ask", label: "Always ask before a command", example: "git push" },
  { list: "commands_deny", label: "Never run a command", example: "make deploy" },
  { list: "paths_allow_write", label: "Edit files without asking", example: "docs/**" },
  { list: "paths_protected", label: "Never read or change files", example: "secrets/**" },
  { list: "paths_protected_exceptions", label: "Let the agent read files that look secret", example: ".env.example" },
  { list: "paths_allow_read", label: "Let commands read a folder outside the project", example: "/srv/shared" },
  { list: "network_allowed_domains", label: "Fetch from a site without asking", example: "docs.rs" },
  { list: "network_denied_domains", label: "Never fetch from a site", example: "example.com" },
  { list: "tools_allow", label: "Use a server's tool without asking", example: "github__list_issues" },
  { list: "tools_off", label: "Turn a tool off", example: "" },
];

export function kindOf(list: RuleList): RuleKind {
  return RULE_KINDS.find((k) => k.list === list) ?? RULE_KINDS[0]!;
}
