//! The thread that owns the loaded model and its context. llama.cpp's context is single-
//! threaded and its calls block for seconds, so it lives on a thread of its own (never a tokio
//! worker: the window and the other sessions keep running) and takes one job at a time.
//!
//! The context's KV cache holds the tokens of the last conversation it saw. A new prompt that
//! starts with them (the next turn of the same session: same system prompt, same history)
//! evaluates only the tokens after the shared beginning.

use crate::abort::{AbortSlot, StopFlag, StopReport};
use crate::error::BuiltinError;
use crate::grammar;
use crate::grammar_sampler;
use crate::prefix_store::{self, PrefixStore};
use crate::prompt::TemplateMessage;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llm::TextStop;
use protocol::ToolDefinition;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;

/// Prompt tokens evaluated per llama.cpp call: prompt speed grows with it (8 tokens: half the
/// speed of 256 on two cores; 512: 9% faster than 256), and Stop does not wait for a call to
/// end (see `abort`); a 2,104-token batch failed in the spike, and 512 is llama.cpp's own
/// default. The window shows progress between calls (~7 s apart on two cores).
pub const PROMPT_BATCH: usize = 512;

/// One reply to write.
pub struct Job {
    pub messages: Vec<TemplateMessage>,
    /// How many of `messages`, from the first, are the same in every session (the system
    /// message, a draft's example): their KV cache is the beginning kept between processes.
    pub fixed_messages: usize,
    pub tools: Vec<ToolDefinition>,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    /// The reply must be a call (the grammar applies from its first token, not lazily).
    pub force_tool_call: bool,
    pub cancel: Arc<StopFlag>,
    pub events: UnboundedSender<WorkerEvent>,
}

/// What the thread reports about a job.
#[derive(Debug)]
pub enum WorkerEvent {
    /// More of the reply (whole UTF-8 characters).
    Text(String),
    /// The prompt is being read: `evaluated` of its `total` tokens are in the KV cache (sent
    /// when reading it takes more than one batch, before each batch and at the end).
    PromptRead {
        evaluated: usize,
        total: usize,
    },
    Done(Outcome),
    Failed(BuiltinError),
}

/// A finished reply and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The prompt as the chat template rendered it (benchmarks feed it to llama-server).
    pub prompt: String,
    pub text: String,
    pub stop: TextStop,
    pub stats: Stats,
}

/// Token counts and timings of one reply.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    /// Prompt tokens in all.
    pub prompt_tokens: usize,
    /// Of those, kept in the KV cache from the previous reply or loaded from a saved
    /// beginning (not evaluated again).
    pub reused_tokens: usize,
    /// Of the reused, loaded from a saved beginning on disk.
    pub restored_tokens: usize,
    pub generated_tokens: usize,
    pub prompt_time: Duration,
    pub generation_time: Duration,
    /// From the job's start to its first generated token.
    pub first_token: Duration,
}

impl Stats {
    pub fn prompt_per_second(&self) -> f64 {
        per_second(self.prompt_tokens - self.reused_tokens, self.prompt_time)
    }

    pub fn generation_per_second(&self) -> f64 {
        per_second(self.generated_tokens, self.generation_time)
    }
}

fn per_second(n: usize, d: Duration) -> f64 {
    if d.is_zero() {
        0.0
    } else {
        n as f64 / d.as_secs_f64()
    }
}

/// The model, its context and the tokens its KV cache holds.
pub struct Worker<'m> {
    pub model: &'m LlamaModel,
    pub ctx: LlamaContext<'m>,
    pub template: LlamaChatTemplate,
    /// The tokens in the KV cache (sequence 0), position by position.
    pub cached: Vec<LlamaToken>,
    pub seed: u32,
    /// What llama.cpp's abort callback reads (declared after `ctx`, so it outlives it).
    pub abort: Arc<AbortSlot>,
    /// Saved beginnings of conversations, on disk (none when not set up).
    pub prefixes: Option<PrefixStore>,
}

impl Worker<'_> {
    pub fn run(&mut self, job: Job) {
        let events = job.events.clone();
        let event = match self.reply(&job) {
            Ok(outcome) => WorkerEvent::Done(outcome),
            Err(e) => {
                // A failed evaluation may have left the cache half-written: start clean.
                self.cached.clear();
                self.ctx.clear_kv_cache();
                WorkerEvent::Failed(e)
            }
        };
        // The receiver is gone when the reply was given up (Stop): nothing to tell.
        let _ = events.send(event);
    }

    fn render(&self, messages: &[TemplateMessage]) -> Result<String, BuiltinError> {
        let chat = messages
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.to_string(), m.content.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| BuiltinError::Template(e.to_string()))?;
        self.model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|e| BuiltinError::Template(e.to_string()))
    }

    fn reply(&mut self, job: &Job) -> Result<Outcome, BuiltinError> {
        let started = Instant::now();
        let text = self.render(&job.messages)?;
        let tokens = self.model.vocab().tokenize(text.as_bytes(), true, true);
        let n_ctx = self.ctx.n_ctx();
        // At least a short answer must fit after the prompt.
        let room = (job.max_tokens.min(n_ctx / 4)) as usize;
        if tokens.len() + room > n_ctx as usize {
            return Err(BuiltinError::TooLong {
                tokens: tokens.len(),
                context: n_ctx,
            });
        }
        let max_tokens = (job.max_tokens as usize).min(n_ctx as usize - tokens.len());

        // Keep the shared beginning; the last prompt token is always evaluated again, since
        // its logits are where the reply starts.
        let mut keep = prefix_store::common_prefix(&self.cached, &tokens);
        keep = keep.min(tokens.len().saturating_sub(1));
        let fixed = self.fixed_beginning(&job.messages[..job.fixed_messages], &tokens);
        let restored = self.restore_beginning(&tokens, keep);
        keep = keep.max(restored);
        self.ctx
            .clear_kv_cache_seq(Some(0), Some(keep as u32), None)
            .map_err(|e| BuiltinError::Decode(e.to_string()))?;
        self.cached.truncate(keep);
        // The fixed beginning is saved once the cache holds exactly it.
        let save_at = (fixed >= prefix_store::MIN_TOKENS
            && fixed > keep
            && fixed < tokens.len()
            && self
                .prefixes
                .as_ref()
                .is_some_and(|p| !p.has(&tokens[..fixed])))
        .then_some(fixed);

        let mut stats = Stats {
            prompt_tokens: tokens.len(),
            reused_tokens: keep,
            restored_tokens: restored,
            ..Stats::default()
        };
        let abort = self.abort.clone();
        let watch = abort.watch(&job.cancel);
        let mut batch = LlamaBatch::new(PROMPT_BATCH, 1);
        let chunks = chunk_bounds(keep, save_at, tokens.len());
        let progress = |evaluated: usize| {
            if chunks.len() > 1 {
                let _ = job.events.send(WorkerEvent::PromptRead {
                    evaluated,
                    total: tokens.len(),
                });
            }
        };
        for (i, &(from, to)) in chunks.iter().enumerate() {
            if job.cancel.is_stopped() {
                return Ok(self.cancelled(job, stats, false));
            }
            progress(self.cached.len());
            batch.clear();
            let last_chunk = i + 1 == chunks.len();
            for (pos, &t) in tokens.iter().enumerate().take(to).skip(from) {
                batch
                    .add(t, pos as i32, &[0], last_chunk && pos + 1 == to)
                    .map_err(|e| BuiltinError::Decode(e.to_string()))?;
            }
            if let Err(e) = self.ctx.decode(&mut batch) {
                // Stopped inside the call: llama.cpp dropped this batch from the cache, and
                // `cached` never had it.
                if job.cancel.is_stopped() {
                    watch.cut_short();
                    return Ok(self.cancelled(job, stats, true));
                }
                return Err(BuiltinError::Decode(e.to_string()));
            }
            self.cached.extend_from_slice(&tokens[from..to]);
            if Some(to) == save_at {
                self.save_beginning();
            }
        }
        progress(self.cached.len());
        stats.prompt_time = started.elapsed();

        let mut sampler = self.sampler(&job.tools, job.temperature, job.force_tool_call);
        let gen_start = Instant::now();
        let mut out = String::new();
        let mut pending: Vec<u8> = Vec::new();
        let mut stop = TextStop::MaxTokens;
        let vocab = self.model.vocab();
        while stats.generated_tokens < max_tokens {
            if job.cancel.is_stopped() {
                stats.generation_time = gen_start.elapsed();
                return Ok(self.cancelled(job, stats, false));
            }
            let token = sampler.next(&self.ctx, batch.n_tokens() - 1)?;
            if stats.generated_tokens == 0 {
                stats.first_token = started.elapsed();
            }
            if vocab.is_eog(token) {
                stop = TextStop::EndTurn;
                break;
            }
            stats.generated_tokens += 1;
            pending.extend(vocab.token_to_piece(token, false, None));
            let piece = take_utf8(&mut pending);
            if !piece.is_empty() {
                out.push_str(&piece);
                let _ = job.events.send(WorkerEvent::Text(piece));
            }
            // Checked every few tokens: a loop shows over hundreds of bytes.
            if stats.generated_tokens.is_multiple_of(16) && crate::repetition::ends_in_a_loop(&out)
            {
                tracing::info!(
                    tokens = stats.generated_tokens,
                    "built-in model: the reply repeats itself; cut as at the token limit"
                );
                break;
            }
            batch.clear();
            batch
                .add(token, self.cached.len() as i32, &[0], true)
                .map_err(|e| BuiltinError::Decode(e.to_string()))?;
            if let Err(e) = self.ctx.decode(&mut batch) {
                if job.cancel.is_stopped() {
                    watch.cut_short();
                    stats.generation_time = gen_start.elapsed();
                    return Ok(self.cancelled(job, stats, true));
                }
                return Err(BuiltinError::Decode(e.to_string()));
            }
            self.cached.push(token);
        }
        stats.generation_time = gen_start.elapsed();
        if !pending.is_empty() {
            out.push_str(&String::from_utf8_lossy(&pending));
        }
        log(&stats);
        Ok(Outcome {
            prompt: text,
            text: out,
            stop,
            stats,
        })
    }

    /// How many of `tokens` are the `fixed` messages: the part of a conversation that is the
    /// same from one session to the next (the system message — tools and rules first, the
    /// project's own words after — and a draft's example). Zero without them.
    fn fixed_beginning(&self, fixed: &[TemplateMessage], tokens: &[LlamaToken]) -> usize {
        if fixed.is_empty() {
            return 0;
        }
        let Ok(chat) = fixed
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.to_string(), m.content.clone()))
            .collect::<Result<Vec<_>, _>>()
        else {
            return 0;
        };
        let Ok(text) = self.model.apply_chat_template(&self.template, &chat, false) else {
            return 0;
        };
        let own = self.model.vocab().tokenize(text.as_bytes(), true, true);
        prefix_store::common_prefix(&own, tokens)
    }

    /// Loads the saved beginning that shares the most with `tokens`, when it gives more than
    /// the `keep` tokens the cache already holds. How many tokens it gave (0: none).
    fn restore_beginning(&mut self, tokens: &[LlamaToken], keep: usize) -> usize {
        let Some(store) = &mut self.prefixes else {
            return 0;
        };
        let Some(found) = store.best(tokens) else {
            return 0;
        };
        let common = found.common.min(tokens.len().saturating_sub(1));
        // Loading replaces the whole cache; a few tokens more are cheaper to evaluate.
        if common < keep + prefix_store::MIN_TOKENS {
            return 0;
        }
        if !found.whole(store) {
            tracing::warn!(
                file = %found.path.display(),
                "built-in model: a saved beginning was cut short; it is removed"
            );
            store.forget(&found.name);
            return 0;
        }
        let started = Instant::now();
        self.ctx.clear_kv_cache();
        self.cached.clear();
        match self.ctx.state_seq_load_file(&found.path, 0, found.saved) {
            Ok((loaded, _)) if loaded.len() >= common && loaded[..common] == tokens[..common] => {
                self.cached = loaded;
                store.used(&found.name);
                tracing::info!(
                    tokens = common,
                    of = found.saved,
                    ms = started.elapsed().as_millis() as u64,
                    "built-in model: a saved beginning loaded"
                );
                common
            }
            outcome => {
                tracing::warn!(
                    error = ?outcome.err(),
                    file = %found.path.display(),
                    "built-in model: a saved beginning would not load; it is removed"
                );
                self.ctx.clear_kv_cache();
                store.forget(&found.name);
                0
            }
        }
    }

    /// Saves the cache, which holds exactly the fixed beginning now. A failure costs only the
    /// next session's time: logged, not reported.
    fn save_beginning(&mut self) {
        let Some(store) = &mut self.prefixes else {
            return;
        };
        let started = Instant::now();
        match store.save(&self.ctx, &self.cached) {
            Ok(bytes) => tracing::info!(
                tokens = self.cached.len(),
                bytes,
                ms = started.elapsed().as_millis() as u64,
                "built-in model: the conversation's beginning saved"
            ),
            Err(e) => {
                tracing::warn!(%e, "built-in model: the conversation's beginning was not saved")
            }
        }
    }

    fn cancelled(&self, job: &Job, stats: Stats, inside_call: bool) -> Outcome {
        let report = StopReport {
            inside_call,
            latency: job.cancel.since(),
        };
        self.abort.stopped(report);
        // Nobody reads a stopped reply: its receiver is gone.
        tracing::info!(
            prompt_tokens = stats.prompt_tokens,
            cached = self.cached.len(),
            inside_call,
            stop_ms = report.latency.as_millis() as u64,
            "built-in model: reply stopped"
        );
        Outcome {
            prompt: String::new(),
            text: String::new(),
            stop: TextStop::EndTurn,
            stats,
        }
    }

    /// Greedy at temperature 0 (or unset: tool calls want the likeliest answer), sampled
    /// otherwise; with tools, the lazy grammar of their calls first.
    fn sampler(
        &self,
        tools: &[ToolDefinition],
        temperature: Option<f32>,
        forced: bool,
    ) -> Sampling {
        let grammar = if tools.is_empty() {
            None
        } else {
            match grammar::grammar(tools).and_then(|g| {
                grammar_sampler::make(self.model, &g, grammar::ROOT, &grammar::TRIGGERS, forced)
                    .map_err(|e| grammar::GrammarError::new(e.to_string()))
            }) {
                Ok(s) => Some(s),
                // The calls are still read leniently from the text, only not forced.
                Err(e) => {
                    tracing::warn!(%e, "built-in model: tool calls are not constrained");
                    None
                }
            }
        };
        let pick = match temperature {
            // Sampled among the likely tokens only, as llama.cpp's defaults do: from the whole
            // distribution a small model's code takes a stray token now and then.
            Some(t) if t > 0.0 => LlamaSampler::chain_simple([
                LlamaSampler::top_k(40),
                LlamaSampler::top_p(0.95, 1),
                LlamaSampler::min_p(0.05, 1),
                LlamaSampler::temp(t),
                LlamaSampler::dist(self.seed),
            ]),
            _ => LlamaSampler::greedy(),
        };
        Sampling { grammar, pick }
    }
}

/// How the next token is chosen: `pick` (greedy or sampled) among the tokens the tool-call
/// grammar allows. Checking the whole vocabulary against the grammar costs more than the
/// model's own step (151,000 tokens for Qwen), so the pick is made first and checked alone;
/// only a pick the grammar refuses is made again among the allowed tokens — as llama.cpp's own
/// sampler does.
struct Sampling {
    grammar: Option<LlamaSampler>,
    pick: LlamaSampler,
}

impl Sampling {
    fn next(&mut self, ctx: &LlamaContext<'_>, idx: i32) -> Result<LlamaToken, BuiltinError> {
        let mut all = ctx.token_data_array_ith(idx);
        all.apply_sampler(&mut self.pick);
        let first = all.selected_token().ok_or(BuiltinError::NoToken)?;
        let Some(grammar) = &mut self.grammar else {
            self.pick.accept(first);
            return Ok(first);
        };
        let mut alone = LlamaTokenDataArray::new(vec![LlamaTokenData::new(first, 1.0, 0.0)], false);
        alone.apply_sampler(grammar);
        let token = if alone.data.first().is_some_and(|d| d.logit().is_finite()) {
            first
        } else {
            let mut allowed = ctx.token_data_array_ith(idx);
            allowed.apply_sampler(grammar);
            allowed.apply_sampler(&mut self.pick);
            allowed.selected_token().ok_or(BuiltinError::NoToken)?
        };
        if grammar_sampler::accept(grammar, token).is_err() {
            // Only a trigger's replay can run past what a call may start with. The rest of the
            // reply goes unconstrained; the call is still read leniently from its text.
            tracing::warn!("built-in model: the call grammar refused the text that started a call");
            self.grammar = None;
        }
        self.pick.accept(token);
        Ok(token)
    }
}

fn log(stats: &Stats) {
    tracing::info!(
        prompt_tokens = stats.prompt_tokens,
        reused_tokens = stats.reused_tokens,
        restored_tokens = stats.restored_tokens,
        prompt_tok_per_s = format!("{:.1}", stats.prompt_per_second()),
        generated_tokens = stats.generated_tokens,
        generation_tok_per_s = format!("{:.1}", stats.generation_per_second()),
        first_token_ms = stats.first_token.as_millis() as u64,
        "built-in model: reply"
    );
}

/// The prompt's batches from `from` to `to`, at most [`PROMPT_BATCH`] tokens each; one ends at
/// `cut` (where the fixed beginning is saved).
fn chunk_bounds(from: usize, cut: Option<usize>, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = from;
    for end in cut.into_iter().chain([to]) {
        while start < end {
            let stop = (start + PROMPT_BATCH).min(end);
            out.push((start, stop));
            start = stop;
        }
    }
    out
}

/// The complete UTF-8 characters at the front of `bytes`, removed from it; an incomplete
/// character at the end waits for the next token (one character may span two tokens).
fn take_utf8(bytes: &mut Vec<u8>) -> String {
    let valid = match std::str::from_utf8(bytes) {
        Ok(s) => s.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        // Bytes that will never be valid: written as U+FFFD rather than kept forever.
        Err(_) => {
            let s = String::from_utf8_lossy(bytes).into_owned();
            bytes.clear();
            return s;
        }
    };
    let rest = bytes.split_off(valid);
    String::from_utf8(std::mem::replace(bytes, rest)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_across_tokens_waits_for_its_end() {
        let mut b = "é".as_bytes()[..1].to_vec();
        assert_eq!(take_utf8(&mut b), "");
        b.extend(&"é".as_bytes()[1..]);
        b.extend(b"x");
        assert_eq!(take_utf8(&mut b), "éx");
        assert!(b.is_empty());
    }

    #[test]
    fn a_batch_ends_where_the_beginning_is_saved() {
        let b = PROMPT_BATCH;
        assert_eq!(chunk_bounds(0, None, 10), vec![(0, 10)]);
        assert_eq!(chunk_bounds(0, Some(4), 10), vec![(0, 4), (4, 10)]);
        assert_eq!(
            chunk_bounds(3, Some(b + 10), b + 20),
            vec![(3, b + 3), (b + 3, b + 10), (b + 10, b + 20)]
        );
        assert_eq!(chunk_bounds(5, None, 5), vec![]);
    }

    #[test]
    fn invalid_bytes_do_not_stay_forever() {
        let mut b = vec![0xff, b'a'];
        assert_eq!(take_utf8(&mut b), "\u{fffd}a");
        assert!(b.is_empty());
    }
}
