//! A loaded model: its thread, and the [`llm::LocalModel`] the provider streams through.

use crate::abort::{AbortSlot, StopFlag, StopReport};
use crate::error::BuiltinError;
use crate::machine;
use crate::prefix_store::PrefixStore;
use crate::prompt;
use crate::worker::{Job, Outcome, PROMPT_BATCH, Worker, WorkerEvent};
use llama_cpp_2::context::params::{KvCacheType, LlamaContextParams};
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatTemplate, LlamaModel};
use llm::{ChatRequest, ChatResponse, LlmError, LocalModel, LocalReply, StreamEvent};
use protocol::Usage;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How the KV cache stores its keys and values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvCache {
    /// 16-bit floats, llama.cpp's default.
    F16,
    /// 8-bit blocks: half the memory.
    Q8,
}

impl KvCache {
    fn llama(self) -> KvCacheType {
        match self {
            KvCache::F16 => KvCacheType::F16,
            KvCache::Q8 => KvCacheType::Q8_0,
        }
    }
}

/// How a model is loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    pub path: PathBuf,
    /// Context size in tokens: the conversation and the reply must fit.
    pub n_ctx: u32,
    /// CPU threads; `None` is every core.
    pub threads: Option<u32>,
    pub kv_cache: KvCache,
    /// Map the file instead of reading it. Mapped, the pages llama.cpp reads while repacking
    /// weights for this CPU stay resident beside the repacked copy: 2,010 MB at the peak
    /// instead of 1,416 for the 1.5B model, for 0.4 s less loading (docs/benchmarks.md).
    pub use_mmap: bool,
    /// Where the KV cache of a conversation's fixed beginning (system prompt and tools) is kept
    /// between processes; `None` keeps nothing.
    pub prefix_cache: Option<PathBuf>,
}

impl LoadOptions {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        LoadOptions {
            path: path.into(),
            n_ctx: 8192,
            threads: None,
            // Q8 saved another 100 MB but read prompts 15% slower here; memory is within the
            // goal without it.
            kv_cache: KvCache::F16,
            use_mmap: false,
            prefix_cache: None,
        }
    }
}

/// What loading took.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadInfo {
    pub load_time: Duration,
    pub n_ctx: u32,
    /// The GGUF's `general.name`, when it has one.
    pub name: Option<String>,
}

/// How one reply is written, beyond the request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Generation {
    /// The reply must be one tool call (the grammar holds from the first token); otherwise it
    /// holds from the moment the model starts a call.
    pub force_tool_call: bool,
}

/// What a reply produces as it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Produced {
    /// More of the reply.
    Text(String),
    /// How far reading the prompt has got (a long prompt on a CPU takes a minute or more).
    PromptRead { evaluated: usize, total: usize },
}

/// A model loaded on its own thread. Dropping the last handle ends the thread and frees the
/// model.
pub struct Engine {
    jobs: Mutex<std::sync::mpsc::Sender<Job>>,
    info: LoadInfo,
    abort: Arc<AbortSlot>,
}

/// llama.cpp's backend starts once per process.
static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

pub(crate) fn backend() -> Result<&'static LlamaBackend, BuiltinError> {
    BACKEND
        .get_or_init(|| {
            // Its logs go to tracing (debug level), not to stderr.
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| BuiltinError::Backend(e.clone()))
}

impl Engine {
    /// Loads the model on a new thread; blocking until it is loaded (a second or two for a
    /// 1 GB file): call it off the async threads.
    pub fn load(opts: LoadOptions) -> Result<Engine, BuiltinError> {
        machine::check(&opts.path)?;
        let backend = backend()?;
        let (jobs_tx, jobs_rx) = std::sync::mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<LoadInfo, BuiltinError>>();
        let abort = Arc::new(AbortSlot::default());
        let thread_abort = abort.clone();
        std::thread::Builder::new()
            .name("builtin-model".into())
            .spawn(move || {
                let abort = thread_abort;
                let started = Instant::now();
                let model = match load_model(backend, &opts.path, opts.use_mmap) {
                    Ok(m) => m,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let threads = opts.threads.map_or_else(
                    || std::thread::available_parallelism().map_or(2, |n| n.get() as i32),
                    |t| t as i32,
                );
                let n_ctx = opts.n_ctx.min(model.n_ctx_train().max(512));
                let params = LlamaContextParams::default()
                    .with_n_ctx(NonZeroU32::new(n_ctx))
                    .with_n_batch(PROMPT_BATCH as u32)
                    .with_n_ubatch(PROMPT_BATCH as u32)
                    .with_n_threads(threads)
                    .with_n_threads_batch(threads)
                    .with_type_k(opts.kv_cache.llama())
                    .with_type_v(opts.kv_cache.llama());
                let params = abort.install(&params).unwrap_or_else(|| {
                    tracing::warn!(
                        "built-in model: Stop waits for the running batch (llama-cpp-2's \
                         context parameters are not laid out as llama.cpp's)"
                    );
                    params
                });
                let ctx = match model.new_context(backend, params) {
                    Ok(c) => c,
                    Err(e) => {
                        let _ = ready_tx.send(Err(BuiltinError::Context(e.to_string())));
                        return;
                    }
                };
                // The template in the GGUF; ChatML (what Qwen and SmolLM use) when it has none.
                let template = model.chat_template(None).or_else(|_| {
                    LlamaChatTemplate::new("chatml")
                        .map_err(|e| BuiltinError::Template(e.to_string()))
                });
                let template = match template {
                    Ok(t) => t,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let info = LoadInfo {
                    load_time: started.elapsed(),
                    n_ctx,
                    name: model.meta_val_str("general.name").ok(),
                };
                tracing::info!(
                    path = %opts.path.display(),
                    load_ms = info.load_time.as_millis() as u64,
                    n_ctx,
                    threads,
                    "built-in model loaded"
                );
                let _ = ready_tx.send(Ok(info));
                let prefixes = opts
                    .prefix_cache
                    .as_deref()
                    .and_then(|dir| PrefixStore::open(dir, &opts));
                let mut worker = Worker {
                    model: &model,
                    ctx,
                    template,
                    cached: Vec::new(),
                    seed: 1234,
                    abort,
                    prefixes,
                };
                // Ends when every Engine handle is gone.
                while let Ok(job) = jobs_rx.recv() {
                    worker.run(job);
                }
            })
            .map_err(|e| BuiltinError::Backend(e.to_string()))?;
        let info = ready_rx.recv().map_err(|_| BuiltinError::WorkerGone)??;
        Ok(Engine {
            jobs: Mutex::new(jobs_tx),
            info,
            abort,
        })
    }

    pub fn info(&self) -> &LoadInfo {
        &self.info
    }

    /// How the thread let go of the last stopped reply (`None` before any Stop).
    pub fn last_stop(&self) -> Option<StopReport> {
        self.abort.last_stop()
    }

    /// llama.cpp calls that Stop cut short, since loading.
    pub fn calls_cut_short(&self) -> u64 {
        self.abort.calls_cut_short()
    }

    /// Writes one reply: its text and how far the prompt has been read stream through
    /// `on_produced`; the outcome (with timings) comes back at the end. Cancelling returns at
    /// once with [`LlmError::Cancelled`], and the thread drops the reply within a few
    /// milliseconds, inside the llama.cpp call it is in.
    pub async fn generate(
        &self,
        req: &ChatRequest,
        how: Generation,
        on_produced: &mut (dyn FnMut(Produced) + Send),
        cancel: &CancellationToken,
    ) -> Result<Outcome, LlmError> {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let flag = Arc::new(StopFlag::default());
        let messages = prompt::messages(req);
        // The system message, then the request's fixed messages (as the template merges none
        // of them: a draft's example alternates user and assistant).
        let has_system = messages.first().is_some_and(|m| m.role == "system");
        let fixed_messages = (usize::from(has_system) + req.fixed_messages).min(messages.len());
        let job = Job {
            messages,
            fixed_messages,
            tools: req.tools.clone(),
            max_tokens: req.max_tokens,
            temperature: req.temperature,
            force_tool_call: how.force_tool_call,
            cancel: flag.clone(),
            events: tx,
        };
        self.jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(job)
            .map_err(|_| LlmError::from(BuiltinError::WorkerGone))?;
        // Tells the thread to drop the job however this future ends (Stop, or the caller
        // going away).
        let _stop = StopOnDrop(flag);
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                ev = rx.recv() => match ev {
                    Some(WorkerEvent::Text(t)) => on_produced(Produced::Text(t)),
                    Some(WorkerEvent::PromptRead { evaluated, total }) => {
                        on_produced(Produced::PromptRead { evaluated, total });
                    }
                    Some(WorkerEvent::Done(o)) => return Ok(o),
                    Some(WorkerEvent::Failed(e)) => return Err(e.into()),
                    None => return Err(BuiltinError::WorkerGone.into()),
                },
            }
        }
    }

    /// One reply as a provider gives it: text streams as it is written, a call written as text
    /// streams as a call being written (not as its JSON), the prompt's progress is reported, and
    /// the calls are read out of the text at the end.
    pub async fn reply(
        &self,
        req: &ChatRequest,
        how: Generation,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        let mut shown = (!req.tools.is_empty()).then(llm::CallTextStream::default);
        let outcome = {
            let mut on_produced = |p: Produced| match (p, &mut shown) {
                (Produced::Text(t), Some(shown)) => shown.push(&t, on_event),
                (Produced::Text(t), None) => on_event(StreamEvent::TextDelta(t)),
                (Produced::PromptRead { evaluated, total }, _) => {
                    on_event(StreamEvent::PromptProgress {
                        evaluated: evaluated as u32,
                        total: total as u32,
                    });
                }
            };
            self.generate(req, how, &mut on_produced, cancel).await?
        };
        if let Some(shown) = &mut shown {
            shown.finish(on_event);
        }
        let s = outcome.stats;
        let usage = Usage {
            input_tokens: (s.prompt_tokens - s.reused_tokens) as u32,
            output_tokens: s.generated_tokens as u32,
            cache_read_tokens: s.reused_tokens as u32,
            cache_write_tokens: 0,
        };
        Ok(llm::reply_from_text(
            &outcome.text,
            outcome.stop,
            usage,
            req,
            on_event,
        ))
    }
}

struct StopOnDrop(Arc<StopFlag>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

fn load_model(
    backend: &LlamaBackend,
    path: &Path,
    use_mmap: bool,
) -> Result<LlamaModel, BuiltinError> {
    let params = LlamaModelParams::default().with_use_mmap(use_mmap);
    LlamaModel::load_from_file(backend, path, &params).map_err(|e| BuiltinError::Load {
        path: path.display().to_string(),
        detail: e.to_string(),
    })
}

impl LocalModel for Engine {
    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
        on_event: &'a mut (dyn FnMut(StreamEvent) + Send),
        cancel: &'a CancellationToken,
    ) -> LocalReply<'a> {
        let how = Generation {
            force_tool_call: req.call_required && !req.tools.is_empty(),
        };
        Box::pin(self.reply(req, how, on_event, cancel))
    }

    fn context(&self) -> Option<u32> {
        Some(self.info.n_ctx)
    }
}
