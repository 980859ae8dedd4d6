// The native folder picker.
import { open, save } from "@tauri-apps/plugin-dialog";

/** Asks the user for a folder; null when they cancel. */
export async function pickFolder(): Promise<string | null> {
  const picked = await open({ directory: true, multiple: false, title: "Open a project folder" });
  return typeof picked === "string" ? picked : null;
}

/** Asks the user for a GGUF model file; null when they cancel. */
export async function pickModelFile(): Promise<string | null> {
  const picked = await open({
    directory: false,
    multiple: false,
    title: "Choose a GGUF model file",
    filters: [{ name: "GGUF model", extensions: ["gguf"] }],
  });
  return typeof picked === "string" ? picked : null;
}

/** Asks the user for the folder of a skill (the one holding its skill.json); null when they cancel. */
export async function pickSkillFolder(): Promise<string | null> {
  const picked = await open({ directory: true, multiple: false, title: "Choose a skill's folder (the one with skill.json)" });
  return typeof picked === "string" ? picked : null;
}

/** Asks where to export a session; null when they cancel. A name ending in .jsonl is the JSON log. */
export async function pickExportFile(defaultName: string): Promise<string | null> {
  const picked = await save({
    title: "Export the session",
    defaultPath: defaultName,
    filters: [
      { name: "Markdown", extensions: ["md"] },
      { name: "JSON log", extensions: ["jsonl"] },
    ],
  });
  return typeof picked === "string" ? picked : null;
}
