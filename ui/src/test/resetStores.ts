// The app's stores as a fresh window starts them: each test renders the App from here.
import { useApp } from "../store";
import { useSession } from "../session";
import { useModels } from "../models";
import { emptyTranscript } from "../transcript";

export function resetStores() {
  useApp.setState({
    screen: { kind: "loading" },
    folders: {},
    expanded: {},
    selected: null,
    openFile: null,
    recent: [],
    showHidden: false,
    panel: "tasks",
    settings: null,
    settingsError: null,
    settingsOpen: false,
    firstRunSkipped: false,
  });
  useSession.setState({
    root: null,
    sessions: [],
    sessionsLoaded: false,
    sessionsError: null,
    current: null,
    transcript: emptyTranscript(),
    runningSession: null,
    mode: "ask",
    answered: {},
    tasks: [],
    error: null,
    loading: false,
    warnings: [],
    sandbox: null,
  });
  useModels.setState({ lists: null, loading: false, error: null, useError: null });
}
