// The models the configured providers offer, asked of Rust (which asks each server at once),
// for the model picker and the Settings screen. Kept apart from the settings themselves: a
// list can be slow or fail while the settings are already known.
import { create } from "zustand";
import { call, toAppError } from "./api";
import type { ProviderModels } from "./bindings";
import { useApp } from "./store";

type ModelsState = {
  /** Per configured provider: its models, or why they could not be listed. */
  lists: ProviderModels[] | null;
  loading: boolean;
  /** Why the lists could not be asked for at all. */
  error: string | null;
  /** Why the last choice was not saved. */
  useError: string | null;
  load: () => Promise<ProviderModels[] | null>;
  /** Makes a provider's model the one new turns use. */
  use: (provider: string, model: string) => Promise<boolean>;
};

let asked = 0;

export const useModels = create<ModelsState>((set) => ({
  lists: null,
  loading: false,
  error: null,
  useError: null,

  async load() {
    asked += 1;
    const mine = asked;
    set({ loading: true });
    try {
      const lists = await call("provider_models");
      // A later ask (the settings changed meanwhile) wins over this one.
      if (mine === asked) set({ lists, loading: false, error: null });
      return lists;
    } catch (err) {
      if (mine === asked) set({ loading: false, error: toAppError(err).message });
      return null;
    }
  },

  async use(provider, model) {
    try {
      const settings = await call("use_model", { provider, model });
      useApp.getState().setSettings(settings);
      set({ useError: null });
      return true;
    } catch (err) {
      set({ useError: `The model was not changed: ${toAppError(err).message}` });
      return false;
    }
  },
}));
