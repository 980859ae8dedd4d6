// The native folder picker.
import { open } from "@tauri-apps/plugin-dialog";

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
