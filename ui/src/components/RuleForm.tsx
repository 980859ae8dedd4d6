// Adding one of your rules, or changing one: what kind of rule, what it is about (a command, a
// path, a site or a tool), and where it applies. Rust checks and writes it; the form shows
// what Rust said when it is refused.
import { useState } from "react";
import type { RuleKey, RuleList } from "../bindings";
import { RULE_KINDS, kindOf } from "../ruleKinds";

export function RuleForm({
  root,
  tools,
  editing,
  saving,
  onSave,
  onCancel,
}: {
  root: string;
  tools: string[];
  /** The rule being changed; none when adding one. */
  editing: RuleKey | null;
  saving: boolean;
  onSave: (rule: RuleKey) => void;
  onCancel: () => void;
}) {
  const [list, setList] = useState<RuleList>(editing?.list ?? "commands_allow");
  const [value, setValue] = useState(editing?.value ?? "");
  const [tool, setTool] = useState(editing?.list === "tools_off" ? editing.value : (tools[0] ?? ""));
  const inProjectFile = editing?.file === "project";
  const [where, setWhere] = useState<"here" | "everywhere">(editing && editing.project === null && !inProjectFile ? "everywhere" : "here");
  const kind = kindOf(list);
  const written = list === "tools_off" ? tool : value.trim();

  const save = () => {
    if (!written) return;
    onSave({
      file: inProjectFile ? "project" : "user",
      project: inProjectFile || where === "everywhere" ? null : root,
      list,
      value: written,
    });
  };

  return (
    <form
      className="rule-form"
      data-testid="rule-form"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <label>
        <span>Rule</span>
        <select data-testid="rule-kind" value={list} onChange={(e) => setList(e.target.value as RuleList)}>
          {RULE_KINDS.map((k) => (
            <option key={k.list} value={k.list}>
              {k.label}
            </option>
          ))}
        </select>
      </label>
      {list === "tools_off" ? (
        <label>
          <span>Tool</span>
          <select data-testid="rule-tool" value={tool} onChange={(e) => setTool(e.target.value)}>
            {tools.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <label>
          <span>{list.startsWith("commands") ? "Command" : list.startsWith("paths") ? "Files (a path or glob)" : list.startsWith("network") ? "Site" : "Tool"}</span>
          <input
            data-testid="rule-value"
            value={value}
            placeholder={`e.g. ${kind.example}`}
            onChange={(e) => setValue(e.target.value)}
            autoFocus
          />
        </label>
      )}
      <label>
        <span>Applies to</span>
        {inProjectFile ? (
          <span className="muted">This project (its own rules file)</span>
        ) : (
          <select data-testid="rule-where" value={where} onChange={(e) => setWhere(e.target.value as "here" | "everywhere")}>
            <option value="here">This project</option>
            <option value="everywhere">All projects</option>
          </select>
        )}
      </label>
      <div className="rule-form-actions">
        <button type="submit" className="primary" data-testid="rule-save" disabled={saving || !written}>
          {saving ? "Saving…" : editing ? "Save the change" : "Add the rule"}
        </button>
        <button type="button" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
      </div>
    </form>
  );
}
