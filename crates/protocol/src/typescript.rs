//! Renders `ui/src/bindings.ts` from the Rust types.

use crate::*;
use ts_rs::{Config, TS};

/// The whole TypeScript bindings file. A test compares it with the checked-in copy, so a
/// change to a type that is not re-exported fails CI (`make bindings` rewrites it).
pub fn typescript() -> String {
    let cfg = Config::new().with_large_int("number");
    let decls = [
        EntryKind::decl(&cfg),
        GitBadge::decl(&cfg),
        FileEntry::decl(&cfg),
        FileListing::decl(&cfg),
        FileContent::decl(&cfg),
        ExtractedFrom::decl(&cfg),
        FileChange::decl(&cfg),
        Hunk::decl(&cfg),
        LineRange::decl(&cfg),
        PlanStatus::decl(&cfg),
        PlanItem::decl(&cfg),
        TaskDone::decl(&cfg),
        Role::decl(&cfg),
        ContentBlock::decl(&cfg),
        Message::decl(&cfg),
        ToolDefinition::decl(&cfg),
        Usage::decl(&cfg),
        StopReason::decl(&cfg),
        ApprovalSuggestion::decl(&cfg),
        Confinement::decl(&cfg),
        OutsideReason::decl(&cfg),
        SandboxDenial::decl(&cfg),
        SandboxStatus::decl(&cfg),
        DenialKind::decl(&cfg),
        Asked::decl(&cfg),
        ChangePreview::decl(&cfg),
        CommandPreview::decl(&cfg),
        ApprovalRequest::decl(&cfg),
        TitlePart::decl(&cfg),
        CallLook::decl(&cfg),
        OutputForm::decl(&cfg),
        ToolOutcome::decl(&cfg),
        ToolSummary::decl(&cfg),
        DoneWarning::decl(&cfg),
        WakeReason::decl(&cfg),
        EngineError::decl(&cfg),
        NextStep::decl(&cfg),
        FailureCode::decl(&cfg),
        ApprovalAnswer::decl(&cfg),
        RestoreScope::decl(&cfg),
        RestoreTarget::decl(&cfg),
        NotRestorableReason::decl(&cfg),
        NotRestorable::decl(&cfg),
        RestoreAction::decl(&cfg),
        RestoreFile::decl(&cfg),
        RestorePreview::decl(&cfg),
        RestoreRecord::decl(&cfg),
        RestoreArgs::decl(&cfg),
        AgentEvent::decl(&cfg),
        ProjectInfo::decl(&cfg),
        RecentProject::decl(&cfg),
        ProjectChanged::decl(&cfg),
        Startup::decl(&cfg),
        OpenProjectArgs::decl(&cfg),
        RemoveRecentArgs::decl(&cfg),
        ListDirArgs::decl(&cfg),
        ReadFileArgs::decl(&cfg),
        TurnOutcome::decl(&cfg),
        SpendLimits::decl(&cfg),
        SpendScope::decl(&cfg),
        Amount::decl(&cfg),
        LimitReached::decl(&cfg),
        SpendStatus::decl(&cfg),
        NotificationPrefs::decl(&cfg),
        RaiseLimitsArgs::decl(&cfg),
        ExportKind::decl(&cfg),
        ExportSessionArgs::decl(&cfg),
        SessionState::decl(&cfg),
        Mode::decl(&cfg),
        SessionInfo::decl(&cfg),
        SearchHitKind::decl(&cfg),
        SearchHit::decl(&cfg),
        SearchSessionsArgs::decl(&cfg),
        SessionTranscript::decl(&cfg),
        SessionFileChange::decl(&cfg),
        BackgroundTask::decl(&cfg),
        ProviderKind::decl(&cfg),
        Wire::decl(&cfg),
        ProviderKindView::decl(&cfg),
        ProviderView::decl(&cfg),
        RoleView::decl(&cfg),
        SearchProviderKind::decl(&cfg),
        WebSearchView::decl(&cfg),
        SaveWebSearchArgs::decl(&cfg),
        TestWebSearchArgs::decl(&cfg),
        WebSearchTest::decl(&cfg),
        KeychainStatus::decl(&cfg),
        SettingsView::decl(&cfg),
        LocalServer::decl(&cfg),
        BuiltinStatus::decl(&cfg),
        BuiltinDownload::decl(&cfg),
        DownloadFailure::decl(&cfg),
        DownloadFailureCode::decl(&cfg),
        UseBuiltinArgs::decl(&cfg),
        ConnectionTest::decl(&cfg),
        ModelInUse::decl(&cfg),
        ProviderModels::decl(&cfg),
        UseModelArgs::decl(&cfg),
        RulesView::decl(&cfg),
        RuleGroup::decl(&cfg),
        RuleGroupKind::decl(&cfg),
        OwnRule::decl(&cfg),
        RuleKey::decl(&cfg),
        RuleFileKind::decl(&cfg),
        RuleList::decl(&cfg),
        RemoveRuleArgs::decl(&cfg),
        AddRuleArgs::decl(&cfg),
        TrustProjectArgs::decl(&cfg),
        ProjectArgs::decl(&cfg),
        SessionArgs::decl(&cfg),
        CreateSessionArgs::decl(&cfg),
        SendMessageArgs::decl(&cfg),
        AnswerApprovalArgs::decl(&cfg),
        SetModeArgs::decl(&cfg),
        StopTaskArgs::decl(&cfg),
        ProviderInput::decl(&cfg),
        SaveSettingsArgs::decl(&cfg),
        SetApiKeyArgs::decl(&cfg),
        TestConnectionArgs::decl(&cfg),
        ExtensionOrigin::decl(&cfg),
        SkillView::decl(&cfg),
        SkillToolView::decl(&cfg),
        SkillProblem::decl(&cfg),
        SkillsView::decl(&cfg),
        SetSkillEnabledArgs::decl(&cfg),
        AddSkillArgs::decl(&cfg),
        RemoveSkillArgs::decl(&cfg),
        SkillActivation::decl(&cfg),
        McpState::decl(&cfg),
        McpServerView::decl(&cfg),
        McpToolView::decl(&cfg),
        McpProblem::decl(&cfg),
        McpView::decl(&cfg),
        McpServerArgs::decl(&cfg),
        NewMcpServerInput::decl(&cfg),
        AddMcpServerArgs::decl(&cfg),
        UiErrorArgs::decl(&cfg),
        UiReadyArgs::decl(&cfg),
        StartupMark::decl(&cfg),
    ];
    let mut out =
        String::from("// Generated from crates/protocol by `make bindings`. Do not edit.\n\n");
    for decl in decls {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    out.push_str(&format!(
        "/** The address a model server on this computer is offered at (Ollama's). */\nexport const DEFAULT_LOCAL_URL = {:?};\n\n",
        DEFAULT_LOCAL_URL
    ));
    let kinds: Vec<ProviderKindView> = PROVIDERS.iter().map(ProviderKindView::from).collect();
    out.push_str(&format!(
        "/** Every kind of model provider, in the order people are offered them. */\nexport const PROVIDER_KINDS: ProviderKindView[] = {};\n\n",
        serde_json::to_string_pretty(&kinds).unwrap_or_default()
    ));
    // serde_json::Value, as ts-rs names it.
    out.push_str("export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;\n\n");
    out.push_str("export interface Commands {\n");
    for (name, args, result) in COMMANDS {
        out.push_str(&format!(
            "  {name}: {{ args: {args}; result: {result} }};\n"
        ));
    }
    out.push_str("}\n");
    out
}
